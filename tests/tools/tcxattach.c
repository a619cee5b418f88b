// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tcxattach: attach one tc program of a BPF object to an interface's TCX ingress or
 * egress (Linux 6.6) and pin the link, as a Cilium-style agent does, for the
 * coexistence tests; Debian 12's bpftool (7.1) cannot attach TCX. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/compat.h" /* TCX's attach types, which Debian 12's libbpf lacks */

/* Usage: tcxattach OBJ PROG IFACE ingress|egress LINK_PIN
 * Removing the pin (rm) detaches it. */
int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	unsigned int ifindex;
	bool ingress;
	int err, fd;

	if (argc != 6 || (strcmp(argv[4], "ingress") && strcmp(argv[4], "egress"))) {
		fprintf(stderr, "usage: tcxattach OBJ PROG IFACE ingress|egress LINK_PIN\n");
		return 2;
	}
	ingress = strcmp(argv[4], "ingress") == 0;
	if (!(ifindex = if_nametoindex(argv[3]))) {
		fprintf(stderr, "tcxattach: unknown interface '%s'\n", argv[3]);
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "tcxattach: cannot open '%s'\n", argv[1]);
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, argv[2]);
	if (!prog) {
		fprintf(stderr, "tcxattach: no program '%s' in '%s'\n", argv[2], argv[1]);
		goto fail;
	}
	if ((err = bpf_object__load(obj))) {
		fprintf(stderr, "tcxattach: load: %s\n", strerror(-err));
		goto fail;
	}
	fd = bpf_link_create(bpf_program__fd(prog), (int)ifindex,
			     ingress ? PS_BPF_TCX_INGRESS : PS_BPF_TCX_EGRESS, NULL);
	if (fd < 0) {
		fprintf(stderr, "tcxattach: attach to %s %s: %s\n", argv[3], argv[4],
			strerror(errno));
		goto fail;
	}
	if (bpf_obj_pin(fd, argv[5])) {
		fprintf(stderr, "tcxattach: pin '%s': %s\n", argv[5], strerror(errno));
		close(fd);
		goto fail;
	}
	close(fd); /* the pin holds the link, the link the program */
	bpf_object__close(obj);
	return 0;
fail:
	bpf_object__close(obj);
	return 1;
}
