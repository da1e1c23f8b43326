/* SPDX-License-Identifier: GPL-2.0 */
/*
 * echo10k.h - the scenario's parameters for echo10k.c and its parts
 * (echo10k_clients.h, echo10k_log.h, echo10k_kernel.h): the server and
 * the files it uses, the number of connections, the idle timeout, the
 * messages each connection sends and how fast the clients open them.
 */
#ifndef ECHO10K_H
#define ECHO10K_H

#define _GNU_SOURCE
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "twtest.h"

#define SERVER		"/usr/bin/twheel-echo-server"
#define SERVER_OUT	"/tmp/echo10k-server.out"
#define RATIO_FILE	"/tmp/echo10k-per-activity-%s"
#define TRACEFS		"/sys/kernel/tracing"
#define INSTANCE	TRACEFS "/instances/twt-echo10k-"
#define STATS		"/sys/class/misc/twheel/stats/"
#define N_CONNS		10000
#define DEBUG_CONNS	2000
#define TIMEOUT_MS	1000
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define TIMEOUT_NS	(TIMEOUT_MS * TWT_MS)
#define INTERVAL_NS	(TIMEOUT_NS / 2)
#define MIN_ACTS	2	/* messages per connection: 2, 3 or 4 */
#define MAX_ACTS	4
#define QUIT_EVERY	10	/* one in ten closes itself */
#define UNCONFIRMED	64	/* connects not yet echoed, < backlog 128 */
#define MAX_OUT		256	/* sends not yet echoed, to open more */
#define LATE_NS		(20 * TWT_MS)	/* sends this late: open no more */
#define QUIET_S		60	/* nothing happened: the rest is not closed */
#define MSG_LEN		16

#endif /* ECHO10K_H */
