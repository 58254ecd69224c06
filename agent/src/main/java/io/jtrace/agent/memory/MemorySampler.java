package io.jtrace.agent.memory;

import io.jtrace.agent.tracks.Sampler;
import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.protos.CounterDescriptor;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * One sample of the JVM's memory as counters under the process: heap and non-heap used and committed,
 * every memory pool's used and committed, every buffer pool's (direct, mapped) bytes used, capacity and
 * buffer count, and the number of loaded classes.
 */
final class MemorySampler implements Sampler {
    private static final CounterDescriptor.Unit BYTES = CounterDescriptor.Unit.UNIT_SIZE_BYTES;
    private static final CounterDescriptor.Unit COUNT = CounterDescriptor.Unit.UNIT_COUNT;

    private final CounterSet counters;
    private final MemoryMXBean memory;
    private final List<MemoryPoolMXBean> pools;
    private final List<BufferPoolMXBean> bufferPools;
    private final ClassLoadingMXBean classLoading;

    MemorySampler(CounterSet counters, MemoryMXBean memory, List<MemoryPoolMXBean> pools,
                  List<BufferPoolMXBean> bufferPools, ClassLoadingMXBean classLoading) {
        this.counters = counters;
        this.memory = memory;
        this.pools = pools;
        this.bufferPools = bufferPools;
        this.classLoading = classLoading;
    }

    @Override
    public void sample(long now) {
        usage("heap", memory.getHeapMemoryUsage(), now);
        usage("non-heap", memory.getNonHeapMemoryUsage(), now);
        for (MemoryPoolMXBean pool : pools) {
            if (pool.isValid()) {
                usage("pool: " + pool.getName(), pool.getUsage(), now);
            }
        }
        for (BufferPoolMXBean pool : bufferPools) {
            String prefix = "buffer pool: " + pool.getName();
            counters.set(prefix + " used", BYTES, now, pool.getMemoryUsed());
            counters.set(prefix + " capacity", BYTES, now, pool.getTotalCapacity());
            counters.set(prefix + " buffers", COUNT, now, pool.getCount());
        }
        counters.set("loaded classes", COUNT, now, classLoading.getLoadedClassCount());
    }

    private void usage(String name, MemoryUsage usage, long now) {
        if (usage == null) {
            return;
        }
        counters.set(name + " used", BYTES, now, usage.getUsed());
        counters.set(name + " committed", BYTES, now, usage.getCommitted());
    }
}
