// SPDX-License-Identifier: GPL-2.0
/*
 * cxx.cc - a C++ workload for symbols.sh: CPU burnt in a member of a
 * class template inside nested namespaces, called from a namespaced
 * function, so the profile must print demangled names.
 */
#include <cstdlib>
#include <ctime>

namespace app {
namespace engine {

template <typename T>
struct Worker {
	T seed;
	__attribute__((noinline)) T crunch(unsigned long n) const
	{
		volatile T x = seed;

		for (unsigned long i = 0; i < n; i++)
			x = x + (T)i;
		return x;
	}
};

__attribute__((noinline)) long run_batch(const Worker<long> &w)
{
	return w.crunch(1000000);
}

} // namespace engine
} // namespace app

int main(int argc, char **argv)
{
	std::time_t end = std::time(nullptr) + (argc > 1 ? std::atoi(argv[1]) : 10);
	app::engine::Worker<long> w = { 3 };

	while (std::time(nullptr) < end)
		app::engine::run_batch(w);
	return 0;
}
