// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Follow an attachment's interface by identity: renamed, it keeps its index; moved
 * to another network namespace, it keeps its XDP program, whose id (the machine's)
 * finds it there. */
#include "loader/iface_find.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "loader/iface.h"
#include "loader/xdp_live.h"

struct link_seen {
	int ifindex;
	char name[IF_NAMESIZE];
	__u32 xdp_prog_id; /* what the kernel reports: ours, or a dispatcher's */
};

struct dump {
	struct link_seen *v;
	size_t n, cap;
};

static int xdp_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_seen *l = data;

	if (mnl_attr_get_type(attr) == IFLA_XDP_PROG_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		l->xdp_prog_id = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_seen *l = data;

	if (mnl_attr_get_type(attr) == IFLA_IFNAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		snprintf(l->name, sizeof(l->name), "%s", mnl_attr_get_str(attr));
	else if (mnl_attr_get_type(attr) == IFLA_XDP)
		mnl_attr_parse_nested(attr, xdp_attr_cb, l);
	return MNL_CB_OK;
}

static int link_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct dump *d = data;
	struct link_seen *v;

	if (d->n == d->cap) {
		v = realloc(d->v, (d->cap ? d->cap * 2 : 16) * sizeof(*v));
		if (!v)
			return MNL_CB_ERROR;
		d->v = v;
		d->cap = d->cap ? d->cap * 2 : 16;
	}
	memset(&d->v[d->n], 0, sizeof(d->v[d->n]));
	d->v[d->n].ifindex = ifm->ifi_index;
	mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, &d->v[d->n]);
	d->n++;
	return MNL_CB_OK;
}

/* Every link of the current network namespace, with its XDP program id. */
static int links_dump(struct dump *d)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq = (unsigned int)time(NULL), portid;
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int ret;

	memset(buf, 0, MNL_ALIGN(sizeof(struct nlmsghdr)) + 256);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	for (;;) {
		ret = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret <= 0) {
			ret = ret < 0 ? -errno : 0;
			break;
		}
		ret = mnl_cb_run(buf, (size_t)ret, seq, portid, link_msg_cb, d);
		if (ret <= 0) {
			ret = ret < 0 ? -errno : 0;
			break;
		}
	}
out:
	mnl_socket_close(nl);
	return ret;
}

/* In the current namespace: the link running program id (alone, or in
 * libxdp's dispatcher). */
static bool find_here(__u32 id, struct ps_iface_where *w)
{
	struct dump d = { 0 };
	unsigned int nprogs;
	__u32 disp;
	bool found = false;
	size_t i;

	if (links_dump(&d) == 0) {
		for (i = 0; i < d.n && !found; i++) {
			if (!d.v[i].xdp_prog_id)
				continue;
			found = d.v[i].xdp_prog_id == id ||
				ps_xdp_live(d.v[i].ifindex, id, &disp, &nprogs) != PS_XDP_REPLACED;
			if (found) {
				w->ifindex = d.v[i].ifindex;
				snprintf(w->ifname, sizeof(w->ifname), "%s", d.v[i].name);
			}
		}
	}
	free(d.v);
	return found;
}

#define NS_SEEN_MAX 4096

struct ns_walk {
	const struct ps_meta *m;
	struct ps_iface_where *w;
	uint64_t seen[NS_SEEN_MAX];
	unsigned int nseen;
	int self;
};

/* Look in the namespace at path (once per inode; never the attachment's
 * own); true when found there. */
static bool look_in(struct ns_walk *k, const char *path, const char *name)
{
	struct stat st;
	unsigned int i;
	bool found;
	int fd;

	if (stat(path, &st) || st.st_ino == k->m->netns_ino)
		return false;
	for (i = 0; i < k->nseen && k->seen[i] != st.st_ino; i++)
		;
	if (i < k->nseen)
		return false;
	if (k->nseen < NS_SEEN_MAX)
		k->seen[k->nseen++] = st.st_ino;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (setns(fd, CLONE_NEWNET)) {
		close(fd);
		return false;
	}
	close(fd);
	found = find_here(k->m->xdp_prog_id, k->w);
	if (setns(k->self, CLONE_NEWNET))
		ps_error("cannot return to the original network namespace: %s", strerror(errno));
	if (found) {
		k->w->netns_ino = st.st_ino;
		snprintf(k->w->netns_name, sizeof(k->w->netns_name), "%s", name);
		snprintf(k->w->netns_path, sizeof(k->w->netns_path), "%s", path);
	}
	return found;
}

/* On `ip link set DEV netns N` the kernel keeps the XDP program (it detaches
 * it only on unregister) and usually the index; the clsact qdisc, and with it
 * pathscope's filters, is destroyed; TCX links stay. No call asks the kernel
 * for the device of a program attached by netlink from outside its namespace:
 * each candidate namespace is entered (setns) and its links dumped. */
int ps_iface_find_moved(const char *dir, const struct ps_meta *m, struct ps_iface_where *w)
{
	struct ns_walk *k;
	char path[300];
	struct dirent *de;
	bool found = false;
	DIR *d;

	(void)dir;
	memset(w, 0, sizeof(*w));
	if (!m->xdp_prog_id || m->xdp_mode == PS_XDP_NONE || m->xdp_mode == PS_XDP_JOIN)
		return -ENOENT;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->m = m;
	k->w = w;
	/* This thread's namespace (serve asks from its HTTP thread, which
	 * may have entered the attachment's): where each look returns. */
	k->self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (k->self < 0)
		goto out;
	d = opendir("/var/run/netns");
	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/var/run/netns/%s", de->d_name);
		found = look_in(k, path, de->d_name);
	}
	if (d)
		closedir(d);
	d = opendir("/proc");
	while (d && !found && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/net", de->d_name);
		found = look_in(k, path, de->d_name);
		if (found) /* no name: its inode, and a process in it */
			snprintf(w->netns_name, sizeof(w->netns_name), "net:[%llu] of pid %.10s",
				 (unsigned long long)w->netns_ino, de->d_name);
	}
	if (d)
		closedir(d);
	close(k->self);
out:
	free(k);
	return found ? 0 : -ENOENT;
}

int ps_iface_where_enter(const struct ps_iface_where *w)
{
	int self, target;

	target = open(w->netns_path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return -2;
	self = ps_netns_enter_fd(target);
	close(target);
	return self < 0 ? -2 : self;
}

const char *ps_iface_followed(const char *dir, const struct ps_meta *m)
{
	static __thread char state[192]; /* serve asks from its HTTP thread too */
	struct ps_iface_where w;
	struct ps_iface ifc;
	unsigned int nprogs;
	__u32 disp;
	bool ours;

	if (ps_iface_get(NULL, (int)m->ifindex, &ifc) == 0) {
		/* Its index, another name: renamed, unless that is another
		 * device (its program elsewhere). */
		ours = (m->xdp_mode != PS_XDP_NATIVE && m->xdp_mode != PS_XDP_SKB) ||
		       ps_xdp_live((int)m->ifindex, m->xdp_prog_id, &disp, &nprogs) >= PS_XDP_ALONE;
		if (ours || ps_iface_find_moved(dir, m, &w)) {
			snprintf(state, sizeof(state), "ok (renamed to %s)", ifc.name);
			return state;
		}
	} else if (ps_iface_find_moved(dir, m, &w)) {
		return NULL;
	}
	snprintf(state, sizeof(state),
		 PS_STATE_MOVED " %s (ifindex %d%s%s); "
				"'pathscope detach --gone' removes it",
		 w.netns_name, w.ifindex, strcmp(w.ifname, m->ifname) ? ", now " : "",
		 strcmp(w.ifname, m->ifname) ? w.ifname : "");
	return state;
}
