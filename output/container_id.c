// SPDX-License-Identifier: GPL-2.0
/*
 * container_id.c - a container's id from its cgroup path (container_id.h).
 */
#include <stdio.h>
#include <string.h>

#include "output/container_id.h"
#include "trace_helpers.h"

#define ID_LEN 64

/* Whether s[0, n) is exactly ID_LEN lowercase hex digits. */
static bool is_id(const char *s, size_t n)
{
	if (n != ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* The component c[0, n) with prefix and suffix around an id: where the id starts, or NULL. */
static const char *id_between(const char *c, size_t n, const char *prefix, const char *suffix)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (n < p + s || strncmp(c, prefix, p) || strncmp(c + n - s, suffix, s))
		return NULL;
	return is_id(c + p, n - p - s) ? c + p : NULL;
}

/* A unit name's part n bytes long, its \xNN escapes undone, into buf. */
static void unescape_unit(const char *s, size_t n, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < size; o++) {
		if (i + 3 < n && s[i] == '\\' && s[i + 1] == 'x' &&
		    hex_digit_value(s[i + 2]) >= 0 && hex_digit_value(s[i + 3]) >= 0) {
			buf[o] = (char)(hex_digit_value(s[i + 2]) << 4 | hex_digit_value(s[i + 3]));
			i += 4;
		} else {
			buf[o] = s[i++];
		}
	}
	buf[o] = '\0';
}

static const char *const id_patterns[][2] = {
	{ "docker-", ".scope" },		/* docker, systemd driver */
	{ "cri-containerd-", ".scope" },	/* containerd's CRI, systemd driver */
	{ "crio-", ".scope" },			/* cri-o */
	{ "libpod-", ".scope" },		/* podman, systemd driver */
	{ "libpod-", "" },			/* podman, cgroupfs driver */
	{ "", "" },				/* docker, containerd: cgroupfs driver */
};

bool container_id__of(const char *path, char *buf, size_t size)
{
	const char *c = path, *parent = NULL;
	size_t parent_len = 0;
	bool found = false;

	*buf = '\0';
	if (size <= ID_LEN)
		return false;
	while (*c) {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (!n)
			break;
		for (size_t p = 0; p < sizeof(id_patterns) / sizeof(id_patterns[0]); p++) {
			const char *id = id_between(c, n, id_patterns[p][0], id_patterns[p][1]);

			if (id) {
				memcpy(buf, id, ID_LEN);
				buf[ID_LEN] = '\0';
				found = true;
				break;
			}
		}
		if (parent && parent_len == strlen("machine.slice") &&
		    !strncmp(parent, "machine.slice", parent_len) &&
		    n > strlen("machine-.scope") && !strncmp(c, "machine-", 8) &&
		    !strncmp(c + n - 6, ".scope", 6)) {
			unescape_unit(c + 8, n - 14, buf, size);
			found = true;
		}
		parent = c;
		parent_len = n;
		c += n;
	}
	return found;
}
