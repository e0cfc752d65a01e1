/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_group.c - the counters whose events hwtap-run opens: .group("NAME")'s perf event
 * groups, and .cgroup("PATH")'s counters (each a group of its own unless it is in one),
 * which only perf_event_open() can make. Included by perf.c, whose lifetimes they share.
 */
#ifndef HWTAP_PERF_GROUP_C
#define HWTAP_PERF_GROUP_C

/* ---- .group("NAME"): perf event groups that hwtap-run opens ---------------------------- */

/* A module cannot make a perf event group (perf_event_create_kernel_counter() takes no group
 * leader), so hwtap-run opens each group with perf_event_open(): on every online CPU, or on
 * each thread of the target with inherit, its first counter the leader, every event
 * disabled and marked with attr.sig_data (a cookie of the session plus the counter's index,
 * how a thread's inherited copy is known in place). Before the start it writes a ctl line
 * an instance, "perf_group LEADER FD,FD,...", and the module takes the files (fget, in the
 * writer's context); hwtap-run closes its descriptors, and the events live as long as the
 * module holds the files. The start enables them, each group's leader last (the group is
 * scheduled as its leader is enabled, and a sibling enabled later joins it only if it
 * shares the leader's PMU context: _hwtap_perf_enable_leader()), the stop reads them like
 * the others and puts the files. A .cgroup counter's events are opened the same way, in
 * its cgroup (perf_event_open's cgroup mode), each counter a group of its own unless it is
 * in one: the module checks each event's cgroup. A CPU that goes offline takes the group's
 * events off it for good (the perf core detaches them); one that comes online gets none:
 * said at the stop. */
#define HWTAP_PERF_GROUP_MAX 32		/* counters in a group (the translator's bound) */

/* FILE's perf event, or NULL: a file perf_event_open() made ("[perf_event]", an anonymous
 * inode). */
static struct perf_event *_hwtap_perf_file_event(struct file *file)
{
	if (file_inode(file)->i_sb->s_magic != ANON_INODE_FS_MAGIC ||
	    strcmp(file->f_path.dentry->d_name.name, "[perf_event]"))
		return NULL;
	return file->private_data;
}

/* Whether EVENT's type is TYPE as perf_event_open() was given it. Since 6.7 (perf: make
 * cpu-clock and task-clock their own PMUs), a software cpu-clock or task-clock event has
 * its attr.type rewritten to that PMU's dynamic type, which is past PERF_TYPE_MAX. */
static bool _hwtap_perf_type_is(const struct perf_event *event, u32 type)
{
	u64 config = event->attr.config;

	if (event->attr.type == type)
		return true;
	return type == PERF_TYPE_SOFTWARE && event->attr.type >= PERF_TYPE_MAX &&
	       (config == PERF_COUNT_SW_CPU_CLOCK || config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Whether P already has an event where EVENT is: on its CPU, or on its thread. */
static bool _hwtap_perf_group_has_place(struct hwtap_perf *p, struct perf_event *event)
{
	int f;

	for (f = 0; f < p->nfiles; f++) {
		struct perf_event *e = p->files[f]->private_data;

		if (p->target ? e->hw.target == event->hw.target : e->cpu == event->cpu)
			return true;
	}
	return false;
}

/* Whether EVENT is what hwtap-run was to open for P, in group LEADER (NULL: it is the
 * leader), as instance COOKIE: P's event, privilege levels included, where P counts (a
 * CPU it has no event on yet, or a thread of the target it has none on: the target's
 * number as the writer, hwtap-run, sees it), inherited for a target. */
static bool _hwtap_perf_group_event_ok(struct hwtap_perf *p, struct perf_event *event,
				       struct perf_event *leader, u64 cookie)
{
	const struct perf_event_attr *a = &event->attr;

	if (!_hwtap_perf_type_is(event, p->attr.type) || a->config != p->attr.config ||
	    a->config1 != p->attr.config1 || a->config2 != p->attr.config2 ||
	    a->sig_data != cookie || event->group_leader != (leader ? leader : event))
		return false;
	if (a->exclude_user != p->attr.exclude_user ||
	    a->exclude_kernel != p->attr.exclude_kernel || a->exclude_hv != p->attr.exclude_hv ||
	    a->exclude_idle != p->attr.exclude_idle || a->exclude_host != p->attr.exclude_host ||
	    a->exclude_guest != p->attr.exclude_guest || a->inherit != p->target ||
	    _hwtap_perf_group_has_place(p, event))
		return false;
#ifdef CONFIG_CGROUP_PERF
	/* in P's cgroup, or in none */
	if ((event->cgrp ? event->cgrp->css.cgroup : NULL) !=
	    (_hwtap_perf_find_cgroup(p) ? ERR_PTR(-ENOENT) : p->cg))
		return false;
#endif
	if (p->target)
		return event->cpu == -1 && (event->attach_state & PERF_ATTACH_TASK) &&
		       event->hw.target && task_tgid_vnr(event->hw.target) == _hwtap_target;
	return event->cpu >= 0 && (p->cpu < 0 || event->cpu == p->cpu) &&
	       !(event->attach_state & PERF_ATTACH_TASK);
}

/* Adds FILE to P's files. */
static int _hwtap_perf_keep_file(struct hwtap_perf *p, struct file *file)
{
	if (p->nfiles == p->files_cap) {
		int cap = p->files_cap ? 2 * p->files_cap : 4;
		struct file **grown = krealloc(p->files, cap * sizeof(*grown), GFP_KERNEL);

		if (!grown)
			return -ENOMEM;
		p->files = grown;
		p->files_cap = cap;
	}
	p->files[p->nfiles++] = file;
	return 0;
}

/* One "perf_group" line (ARGS: what follows the word) for TABLE's group whose first
 * counter is TABLE[LEADER]. */
static int _hwtap_perf_group_line(struct hwtap_perf *table, int n, int leader, char *args)
{
	struct file *files[HWTAP_PERF_GROUP_MAX];
	struct perf_event *first = NULL;
	int members[HWTAP_PERF_GROUP_MAX];
	int i, m = 0, taken = 0, rc = 0;
	u64 cookie = 0;
	char *fd;

	for (i = leader; i < n; i++)
		if (table[i].group && table[i].leader == leader && m < HWTAP_PERF_GROUP_MAX)
			members[m++] = i;
	if (args[0] == '!') {	/* "!ERRNO FAILED FIT": it could not be opened */
		int err, failed, fit;

		if (sscanf(args + 1, "%d %d %d", &err, &failed, &fit) != 3 || err <= 0 ||
		    failed < 0 || failed >= n || fit < 0)
			return -EINVAL;
		for (i = 0; i < m; i++) {
			table[members[i]].group_err = err;
			table[members[i]].group_fit = fit;
			table[members[i]].group_bad = failed;
		}
		return 0;
	}
	while ((fd = strsep(&args, ",")) && !rc) {
		struct perf_event *event;
		struct hwtap_perf *p;
		unsigned int num;

		if (taken == m || kstrtouint(fd, 10, &num)) {
			rc = -EINVAL;
			break;
		}
		files[taken] = fget(num);
		if (!files[taken]) {
			rc = -EBADF;
			break;
		}
		p = &table[members[taken]];
		event = _hwtap_perf_file_event(files[taken++]);
		if (event && !first)
			cookie = event->attr.sig_data - members[0];
		if (!event || !_hwtap_perf_group_event_ok(p, event, first,
							 cookie + members[taken - 1]))
			rc = -EINVAL;
		first = first ? first : event;
	}
	if (!rc && taken != m)
		rc = -EINVAL;
	/* I: how many were kept (a failed keep leaves files[i] ours) */
	for (i = 0; i < taken && !rc; i += !rc) {
		rc = _hwtap_perf_keep_file(&table[members[i]], files[i]);
		if (!rc)
			table[members[i]].cookie = cookie + members[i];
	}
	/* the files a failure leaves: ours only those not kept (each kept one is the last) */
	while (rc && taken > i)
		fput(files[--taken]);
	return rc;
}

/* hwtap_ctl_command() of a module with groups: a "perf_group LEADER ..." line before the
 * start (see protocol.h), or NULL (unloading): the files the start did not take put back. */
static int _hwtap_perf_group_command(struct hwtap_perf *table, int n, char *cmd)
{
	size_t word = strlen(HWTAP_CTL_PERF_GROUP);
	unsigned int leader;
	char *rest;

	if (!cmd) {
		_hwtap_perf_drop_files(table, n);
		_hwtap_perf_put_cgroups(table, n);
		return 0;
	}
	if (strncmp(cmd, HWTAP_CTL_PERF_GROUP " ", word + 1))
		return -EINVAL;
	rest = strchr(cmd + word + 1, ' ');
	if (!rest)
		return -EINVAL;
	*rest++ = '\0';
	if (kstrtouint(cmd + word + 1, 10, &leader) || leader >= n || !table[leader].group ||
	    table[leader].leader != leader)
		return -EINVAL;
	return _hwtap_perf_group_line(table, n, leader, rest);
}

static int _hwtap_perf_enable_leader(struct hwtap_perf *p, struct hwtap_perf *table);

/* A counter of a group: the events hwtap-run opened for it, in its slots, enabled. */
static int _hwtap_perf_start_group(struct hwtap_perf *p, struct hwtap_perf *table)
{
	int f, i, rc, self = p - table;

	if (p->group_err) {
		struct hwtap_perf *bad = &table[p->group_bad];

		/* (EINVAL: perf_event_open refused the next counter in the group and took it
		 * alone; E2BIG: the group opened, but the PMU never takes it whole) */
		if ((p->group_err == EINVAL || p->group_err == E2BIG) && p->group_fit > 0)
			return _hwtap_perf_failed(p, -E2BIG, "group %s does not fit on the PMU: a "
						  "group is on it whole or not at all, and it takes "
						  "at most %d of the group's events at once (counter "
						  "%s is one too many)", p->group, p->group_fit,
						  bad->counter);
		/* (the cgroup is there: the start found it) */
		if (p->cgroup && p->group_err == ENOENT)
			return _hwtap_perf_failed(p, -ENOENT, "cannot count counter %s in cgroup %s: "
						  "the cgroup has no perf_event controller (cgroup "
						  "v2 gives it to the cgroups made once the root's "
						  "cgroup.subtree_control names a controller, as "
						  "systemd's does)", bad->counter, p->cgroup);
		if (p->group[0] == '@')		/* a .cgroup counter's own group */
			return _hwtap_perf_failed(p, -p->group_err, "cannot open counter %s's perf "
						  "event (type %u, config %#llx) in cgroup %s: %s",
						  p->counter, p->attr.type,
						  (unsigned long long)p->attr.config, p->cgroup,
						  _hwtap_perf_reason(-p->group_err));
		return _hwtap_perf_failed(p, -p->group_err, "group %s: cannot open counter %s's "
					  "perf event (type %u, config %#llx): %s", p->group,
					  bad->counter, bad->attr.type,
					  (unsigned long long)bad->attr.config,
					  _hwtap_perf_reason(-p->group_err));
	}
	if (p->target && _hwtap_target <= 0)
		return _hwtap_perf_failed(p, -EINVAL, ".process needs a target process: run "
					  "the script with -c CMD or -x PID");
	if (p->target && p->nfiles > HWTAP_PERF_MAX_TASKS)
		return _hwtap_perf_failed(p, -E2BIG, "process %ld has %d threads, more than "
					  "HWTAP_PERF_MAX_TASKS (%d; -D HWTAP_PERF_MAX_TASKS=N)",
					  _hwtap_target, p->nfiles, HWTAP_PERF_MAX_TASKS);
	if (p->nfiles <= 0)
		return _hwtap_perf_failed(p, -ENODEV, "group %s: hwtap-run gave it no perf "
					  "events (it opens a group's events as it loads the "
					  "module)", p->group);
	if (p->target) {
		p->tasks = kmalloc_array(p->nfiles, sizeof(*p->tasks), GFP_KERNEL);
		if (!p->tasks)
			return _hwtap_perf_failed(p, -ENOMEM, "out of memory for its perf events");
		p->tasks_cap = p->nfiles;
	} else {
		p->events = alloc_percpu(struct hwtap_perf_cpu);
		if (!p->events)
			return _hwtap_perf_failed(p, -ENOMEM, "out of memory for its perf events");
		/* callbacks only for CPUs coming online later: they get no event, said */
		rc = cpuhp_state_add_instance_nocalls(_hwtap_perf_state, &p->node);
		if (rc) {
			free_percpu(p->events);
			p->events = NULL;
			return _hwtap_perf_failed(p, rc, "cannot register for CPU hotplug (%d)", rc);
		}
	}
	mutex_lock(&_hwtap_perf_lock);	/* the refresher reads them from now */
	for (f = 0; f < p->nfiles; f++) {
		struct perf_event *event = p->files[f]->private_data;

		if (p->target) {
			p->tasks[p->ntasks++] = event;
		} else {
			spin_lock(&_hwtap_perf_cpus_lock);
			per_cpu_ptr(p->events, event->cpu)->event = event;
			spin_unlock(&_hwtap_perf_cpus_lock);
		}
		/* a leader waits for its siblings (below) */
		if (p->leader != self)
			perf_event_enable(event);
	}
	mutex_unlock(&_hwtap_perf_lock);
	for (i = self + 1; i < _hwtap_perf_n; i++)
		if (table[i].group && table[i].leader == p->leader)
			return 0;	/* the group's last counter enables its leader */
	return _hwtap_perf_enable_leader(p, table);
}

/* The last counter P of a group started: its leader's events enabled, after the siblings',
 * for perf schedules a group as its leader is enabled, and a sibling enabled later joins
 * it only if it shares the leader's PMU context (from 6.7 on, cpu-clock has a PMU of its
 * own: a software sibling enabled after a cpu-clock leader never counted, running 0).
 * Pinned, a CPU's group is on the PMU now, or in error for good: then the whole group
 * stops, each counter told why, P failed. */
static int _hwtap_perf_enable_leader(struct hwtap_perf *p, struct hwtap_perf *table)
{
	struct hwtap_perf *leader = &table[p->leader];
	int f, i;

	if (leader != p && !leader->c.created)
		return 0;	/* it was skipped or failed, and said so */
	mutex_lock(&_hwtap_perf_lock);
	for (f = 0; f < leader->nfiles; f++)
		perf_event_enable(leader->files[f]->private_data);
	mutex_unlock(&_hwtap_perf_lock);
	for (f = 0; f < leader->nfiles && !leader->target; f++) {
		struct perf_event *event = leader->files[f]->private_data;
		int cpu = event->cpu;

		if (!_hwtap_perf_pinned_lost(event))
			continue;
		for (i = p->leader; i <= p - table; i++) {
			struct hwtap_perf *q = &table[i];

			if (!q->group || q->leader != p->leader || !q->events)
				continue;
			_hwtap_perf_stop_cpus(q);
			q->c.created = false;
			scnprintf(q->c.why, sizeof(q->c.why), "group %s: its events cannot all "
				  "be on the PMU of CPU %d at once: %s", p->group, cpu,
				  _hwtap_perf_reason(-ENOSPC));
		}
		if (!p->c.optional)
			_hwtap_script_error("%s (%s): %s", p->c.point, p->c.where, p->c.why);
		return -ENOSPC;
	}
	return 0;
}

#endif /* HWTAP_PERF_GROUP_C */
