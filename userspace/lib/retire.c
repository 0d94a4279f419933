// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libretire: the ioctl side. Thin wrappers over one ioctl helper.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libretire.h"
#include "internal.h"

struct retire {
	int fd;
};

int __retire_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

int retire_open(struct retire **rp, const char *path, unsigned int flags)
{
	struct retire *r;

	if (!rp || flags)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = open(path ? path : LIBRETIRE_DEFAULT_PATH, O_RDWR | O_CLOEXEC);
	if (r->fd < 0) {
		int err = -errno;

		free(r);
		return err;
	}
	*rp = r;
	return 0;
}

void retire_close(struct retire *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r);
}

int retire_fd(const struct retire *r)
{
	return r ? r->fd : -EINVAL;
}

int retire_get_info(struct retire *r, struct retire_info *info)
{
	if (!r || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	return __retire_ioctl(r->fd, RETIRE_IOC_GET_INFO, info);
}
