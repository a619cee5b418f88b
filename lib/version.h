/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pathscope's release, as --version and serve show it. */
#ifndef PATHSCOPE_LIB_VERSION_H
#define PATHSCOPE_LIB_VERSION_H

/* The release; a build may override it (-DPATHSCOPE_VERSION=...). */
#ifndef PATHSCOPE_VERSION
#define PATHSCOPE_VERSION "0.1.0"
#endif

#endif /* PATHSCOPE_LIB_VERSION_H */
