// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Classic clsact attach (the fallback where TCX is missing) and TCX links. */
#include "loader/tc_clsact.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <time.h>

#include "lib/compat.h"
#include "lib/util.h"
#include "pathscope/meta.h"

bool ps_tcx_supported(int ifindex)
{
	__u32 cnt = 0;

	if (ps_fallback_forced("tcx"))
		return false;
	/* Kernels without TCX reject the attach type with EINVAL. */
	return bpf_prog_query(ifindex, PS_BPF_TCX_INGRESS, 0, NULL, NULL, &cnt) == 0;
}

int ps_tcx_attach(int ifindex, int prog_fd, bool ingress)
{
	/* BPF_F_BEFORE with no relative program: first in line, so pathscope
	 * sees every packet even when a later program drops it. */
	DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = PS_BPF_F_BEFORE);
	int fd = bpf_link_create(prog_fd, ifindex, ingress ? PS_BPF_TCX_INGRESS : PS_BPF_TCX_EGRESS,
				 &opts);

	return fd < 0 ? -errno : fd;
}

static void tc_hook_init(struct bpf_tc_hook *hook, int ifindex, bool ingress)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = ifindex;
	hook->attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS;
}

int ps_clsact_create(int ifindex, bool *created)
{
	struct bpf_tc_hook hook;
	int err;

	tc_hook_init(&hook, ifindex, true);
	err = bpf_tc_hook_create(&hook); /* the one clsact qdisc of both hooks */
	*created = err == 0;
	return err == -EEXIST ? 0 : err;
}

int ps_clsact_attach(int ifindex, int prog_fd, bool ingress, unsigned int prio)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = PS_TC_HANDLE, .priority = prio,
			    .prog_fd = prog_fd);
	struct bpf_tc_hook hook;

	tc_hook_init(&hook, ifindex, ingress);
	return bpf_tc_attach(&hook, &opts);
}

unsigned int ps_clsact_prog_id(int ifindex, bool ingress, unsigned int prio)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = PS_TC_HANDLE, .priority = prio);
	struct bpf_tc_hook hook;

	tc_hook_init(&hook, ifindex, ingress);
	return bpf_tc_query(&hook, &opts) ? 0 : opts.prog_id;
}

int ps_clsact_detach(int ifindex, bool ingress, unsigned int prio, unsigned int prog_id)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = PS_TC_HANDLE, .priority = prio);
	struct bpf_tc_hook hook;
	int err;

	tc_hook_init(&hook, ifindex, ingress);
	err = bpf_tc_query(&hook, &opts);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (opts.prog_id != prog_id)
		return -ESTALE; /* someone else's filter now: leave it */
	opts.prog_id = 0;
	opts.prog_fd = 0;
	opts.flags = 0;
	return bpf_tc_detach(&hook, &opts);
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == RTM_NEWTFILTER)
		(*(int *)data)++;
	return MNL_CB_OK;
}

static int dump_filters(struct mnl_socket *nl, int ifindex, __u32 parent, int *count)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq = (unsigned int)time(NULL) + parent, portid = mnl_socket_get_portid(nl);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;
	int ret;

	nlh->nlmsg_type = RTM_GETTFILTER;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = parent;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	while ((ret = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		ret = mnl_cb_run(buf, ret, seq, portid, count_cb, count);
		if (ret <= 0)
			break;
	}
	return ret < 0 ? -errno : 0;
}

int ps_clsact_filter_count(int ifindex)
{
	struct mnl_socket *nl;
	int count = 0, err;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	err = mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ? -errno : 0;
	if (!err)
		err = dump_filters(nl, ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS), &count);
	if (!err)
		err = dump_filters(nl, ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS), &count);
	mnl_socket_close(nl);
	return err ? err : count;
}

int ps_clsact_destroy(int ifindex)
{
	struct bpf_tc_hook hook;

	tc_hook_init(&hook, ifindex, true);
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	return bpf_tc_hook_destroy(&hook);
}
