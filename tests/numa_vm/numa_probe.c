/* numa_probe: report what NUMA topology and placement the process sees.
 *
 * Used by tests/numa_vm/smoke_test.sh through scripts/numa-vm.sh.
 * Build: cc -O2 -o numa_probe numa_probe.c -lnuma
 * Usage: numa_probe [EXIT_STATUS [ARGS...]]
 *   Exits with EXIT_STATUS (default 0); ARGS are echoed as "arg N <...>" so
 *   that argument quoting can be checked.  Everything goes to stdout except
 *   one "probe-stderr" line on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_cpuset(const char *label, const cpu_set_t *set)
{
    printf("%s", label);
    const char *sep = " ";
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set)) {
            printf("%s%d", sep, c);
            sep = ",";
        }
    printf("\n");
}

int main(int argc, char **argv)
{
    int rc = argc > 1 ? atoi(argv[1]) : 0;

    for (int i = 2; i < argc; i++)
        printf("arg %d <%s>\n", i - 1, argv[i]);

    if (numa_available() < 0) {
        printf("numa_available no\n");
        fprintf(stderr, "probe-stderr: libnuma says NUMA is not available\n");
        return rc ? rc : 1;
    }
    int max_node = numa_max_node();
    int ncpus = numa_num_configured_cpus();
    printf("configured_nodes %d\n", numa_num_configured_nodes());
    printf("max_node %d\n", max_node);
    printf("configured_cpus %d\n", ncpus);
    for (int c = 0; c < ncpus; c++)
        printf("cpu %d node %d\n", c, numa_node_of_cpu(c));

    struct bitmask *mems = numa_get_mems_allowed();
    printf("mems_allowed");
    const char *sep = " ";
    for (int n = 0; n <= max_node; n++)
        if (numa_bitmask_isbitset(mems, n)) {
            printf("%s%d", sep, n);
            sep = ",";
        }
    printf("\n");
    numa_bitmask_free(mems);

    size_t pagesz = (size_t)numa_pagesize();
    for (int n = 0; n <= max_node; n++) {
        fflush(stdout);
        char *p = numa_alloc_onnode(pagesz, n);
        if (!p) {
            printf("alloc node %d -> failed\n", n);
            continue;
        }
        memset(p, 0x5a, pagesz);              /* fault the page in */
        void *pages[1] = {p};
        int status = -1;
        long r = move_pages(0, 1, pages, NULL, &status, 0);  /* query mode */
        if (r != 0)
            printf("alloc node %d -> move_pages error %s\n", n, strerror(errno));
        else if (status < 0)
            printf("alloc node %d -> page status %s\n", n, strerror(-status));
        else
            printf("alloc node %d -> page_node %d\n", n, status);
        numa_free(p, pagesz);
    }

    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        printf("affinity error %s\n", strerror(errno));
    else
        print_cpuset("affinity", &set);

    printf("exit %d\n", rc);
    fflush(stdout);
    fprintf(stderr, "probe-stderr: exiting with %d\n", rc);
    return rc;
}
