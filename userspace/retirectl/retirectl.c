// SPDX-License-Identifier: MIT
/*
 * retirectl: inspect and drive the retire module from the command line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libretire.h"

static const char *const feature_names[] = {
	"genl",
	"requests",
	"sim",
	"admission",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: retirectl [-d DEVICE] COMMAND\n"
		"\n"
		"commands:\n"
		"  info    the module's ABI version, features and caps, over\n"
		"          the ioctl and over generic netlink\n"
		"\n"
		"  -d DEVICE  the character device (default %s)\n",
		LIBRETIRE_DEFAULT_PATH);
}

static void print_features(__u64 features)
{
	unsigned int i;

	printf("0x%" PRIx64, (uint64_t)features);
	for (i = 0; i < 64; i++) {
		if (!(features & (1ULL << i)))
			continue;
		if (i < sizeof(feature_names) / sizeof(feature_names[0]))
			printf(" %s", feature_names[i]);
		else
			printf(" bit%u", i);
	}
	printf("\n");
}

static int cmd_info(const char *dev)
{
	struct retire_info info, nlinfo;
	struct retire_nl *nl;
	struct retire *r;
	int ret;

	ret = retire_open(&r, dev, 0);
	if (ret) {
		fprintf(stderr, "retirectl: open %s: %s\n",
			dev ? dev : LIBRETIRE_DEFAULT_PATH, strerror(-ret));
		return 1;
	}
	ret = retire_get_info(r, &info);
	retire_close(r);
	if (ret) {
		fprintf(stderr, "retirectl: GET_INFO: %s\n", strerror(-ret));
		return 1;
	}

	printf("device              %s\n", dev ? dev : LIBRETIRE_DEFAULT_PATH);
	printf("abi version         %u\n", info.abi_version);
	printf("features            ");
	print_features(info.features);
	printf("caps per context\n");
	printf("  max_unretired       %u\n", info.caps.max_unretired);
	printf("  max_active          %u\n", info.caps.max_active);
	printf("  max_active_per_key  %u\n", info.caps.max_active_per_key);
	printf("  max_waiting         %u\n", info.caps.max_waiting);
	printf("  max_tokens          %u\n", info.caps.max_tokens);
	printf("  max_buffers         %u\n", info.caps.max_buffers);
	printf("  max_reserved_bytes  %llu\n",
	       (unsigned long long)info.caps.max_reserved_bytes);
	printf("  max_pinned_bytes    %llu\n",
	       (unsigned long long)info.caps.max_pinned_bytes);
	printf("  max_pool_bytes      %llu\n",
	       (unsigned long long)info.caps.max_pool_bytes);
	printf("  watchdog_ns         %llu\n",
	       (unsigned long long)info.caps.watchdog_ns);

	ret = retire_nl_open(&nl);
	if (ret) {
		fprintf(stderr, "retirectl: netlink family %s: %s\n",
			"retire", strerror(-ret));
		return 1;
	}
	ret = retire_nl_get_info(nl, &nlinfo);
	printf("netlink family      retire, id %d\n", retire_nl_family_id(nl));
	retire_nl_close(nl);
	if (ret) {
		fprintf(stderr, "retirectl: netlink INFO_GET: %s\n",
			strerror(-ret));
		return 1;
	}
	printf("netlink abi/features %u ", nlinfo.abi_version);
	print_features(nlinfo.features);
	if (nlinfo.abi_version != info.abi_version ||
	    nlinfo.features != info.features) {
		fprintf(stderr, "retirectl: ioctl and netlink disagree\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[optind], "info"))
		return cmd_info(dev);

	fprintf(stderr, "retirectl: unknown command '%s'\n", argv[optind]);
	usage(stderr);
	return 2;
}
