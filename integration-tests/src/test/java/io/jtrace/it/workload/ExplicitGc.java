package io.jtrace.it.workload;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * A System.gc() the workloads can count on. The JVM may skip one without a word: on JDK 17 a full GC
 * does not run while another thread is inside a JNI critical region (the agent loading a class inflates
 * it from its jar in one), and the call returns having collected nothing. So it is asked again until the
 * collectors' count moves.
 */
final class ExplicitGc {
    private static final long GIVE_UP_NANOS = 10_000_000_000L;

    private ExplicitGc() {}

    /** Runs one collection the GarbageCollectorMXBeans count; gives up after 10 s of skipped calls. */
    static void collect() throws InterruptedException {
        long before = collections();
        long start = System.nanoTime();
        System.gc();
        while (collections() == before && System.nanoTime() - start < GIVE_UP_NANOS) {
            Thread.sleep(1);
            System.gc();
        }
    }

    /** Collections every GarbageCollectorMXBean has counted so far. */
    static long collections() {
        long collections = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collections += Math.max(0, gc.getCollectionCount());
        }
        return collections;
    }
}
