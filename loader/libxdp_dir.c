// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libxdp's lock directory, removed again when pathscope's call made it. */
#include "loader/libxdp_dir.h"

#include <unistd.h>

#define LIBXDP_DIR "/sys/fs/bpf/xdp"

bool ps_libxdp_dir_absent(void)
{
	return access(LIBXDP_DIR, F_OK) != 0;
}

void ps_libxdp_dir_tidy(bool was_absent)
{
	if (was_absent)
		rmdir(LIBXDP_DIR);
}
