package io.jtrace.agent.threads;

import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * Reads the CPU time of many threads at once. On HotSpot (and every JVM with the
 * {@code com.sun.management} extension) that is one call for all of them: the JVM looks the threads up
 * under one thread-list snapshot and crosses into native code once, where a call per thread paid for
 * the crossing, its argument checks and a result array each time, about a third of a read's cost
 * (async-profiler, 1,000 parked threads, JDK 17). Elsewhere it reads them one by one.
 */
abstract class CpuTimes {
    /**
     * The CPU times, in ns, of the first {@code count} thread ids, in their order; -1 for a thread that
     * has ended. The array returned is the caller's until the next call.
     */
    abstract long[] read(long[] threadIds, int count);

    static CpuTimes of(ThreadMXBean bean) {
        if (bean instanceof com.sun.management.ThreadMXBean) {
            return new Bulk((com.sun.management.ThreadMXBean) bean);
        }
        return new OneByOne(bean);
    }

    private static final class Bulk extends CpuTimes {
        private final com.sun.management.ThreadMXBean bean;

        Bulk(com.sun.management.ThreadMXBean bean) {
            this.bean = bean;
        }

        @Override
        long[] read(long[] threadIds, int count) {
            return bean.getThreadCpuTime(count == threadIds.length ? threadIds : Arrays.copyOf(threadIds, count));
        }
    }

    private static final class OneByOne extends CpuTimes {
        private final ThreadMXBean bean;
        private long[] times = new long[0];

        OneByOne(ThreadMXBean bean) {
            this.bean = bean;
        }

        @Override
        long[] read(long[] threadIds, int count) {
            if (times.length < count) {
                times = new long[threadIds.length];
            }
            for (int i = 0; i < count; i++) {
                times[i] = bean.getThreadCpuTime(threadIds[i]);
            }
            return times;
        }
    }
}
