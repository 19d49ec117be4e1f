/* SPDX-License-Identifier: GPL-2.0 */
/*
 * container_id.h - which container a cgroup path is, by the names the
 * usual runtimes give their cgroups (docs/output.md, "Containers"):
 *
 *   docker            /docker/ID, /system.slice/docker-ID.scope
 *   containerd (CRI)  .../cri-containerd-ID.scope, /kubepods/.../podUID/ID
 *   cri-o             .../crio-ID.scope
 *   podman            .../libpod-ID.scope, /libpod_parent/libpod-ID
 *   systemd-nspawn,   /machine.slice/machine-NAME.scope (systemd's \xNN
 *   machined          escapes undone: machine-my\x2dbox.scope is my-box)
 *
 * ID is 64 hex digits. The last component that matches wins: a container
 * inside a container is the inner one, and a cgroup a container makes for
 * itself (libpod-ID.scope/init.scope) is still the container's.
 */
#ifndef CONTAINER_ID_H
#define CONTAINER_ID_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The container of cgroup path into buf (size > 64): its id, or a
 * machine's name. false when no pattern matches; buf is then the empty
 * string.
 */
bool container_id__of(const char *path, char *buf, size_t size);

#endif /* CONTAINER_ID_H */
