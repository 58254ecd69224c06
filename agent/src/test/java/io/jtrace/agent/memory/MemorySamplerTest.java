package io.jtrace.agent.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.RecordingContext;
import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.agent.tracks.DecodedSequences;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.agent.tracks.Sampler;
import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.DataSourceConfig;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.lang.ref.Reference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jvm.memory's counters, decoded from what the sampler wrote: one track per figure under the process,
 * in bytes or as a count, holding exactly what the MXBeans returned, written only when it changed.
 */
class MemorySamplerTest {
    private static final CounterDescriptor.Unit BYTES = CounterDescriptor.Unit.UNIT_SIZE_BYTES;
    private static final CounterDescriptor.Unit COUNT = CounterDescriptor.Unit.UNIT_COUNT;

    @TempDir
    Path dir;

    private RecordingContext context;
    private ProcessTrack process;
    private PolledSequence sequence;
    private long now = 1_000_000;

    @BeforeEach
    void open() throws Exception {
        context = new RecordingContext(dir, 1 << 20);
        process = new ProcessTrack(1, "test", 5);
        sequence = new PolledSequence(process, context);
        sequence.open();
    }

    @AfterEach
    void close() {
        context.close();
    }

    @Test
    void everyPoolBufferPoolHeapAndClassCountIsACounterHoldingWhatTheMXBeansReturned() throws Exception {
        // The JVM's own MXBeans, each call's result recorded as the sampler gets it.
        Map<String, Object> returned = new LinkedHashMap<>();
        MemoryMXBean memory = recording(MemoryMXBean.class, ManagementFactory.getMemoryMXBean(), "memory", returned);
        List<MemoryPoolMXBean> pools = new ArrayList<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            pools.add(recording(MemoryPoolMXBean.class, pool, "pool " + pool.getName(), returned));
        }
        List<BufferPoolMXBean> bufferPools = new ArrayList<>();
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            bufferPools.add(recording(BufferPoolMXBean.class, pool, "buffer " + pool.getName(), returned));
        }
        ClassLoadingMXBean classes = recording(ClassLoadingMXBean.class, ManagementFactory.getClassLoadingMXBean(),
                "classes", returned);
        Sampler sampler = new MemorySampler(new CounterSet(sequence), memory, pools, bufferPools, classes);

        sample(sampler);
        DecodedSequences trace = decode();

        assertEquals(List.of(), trace.undecodable());
        MemoryUsage heap = (MemoryUsage) returned.get("memory.getHeapMemoryUsage");
        MemoryUsage nonHeap = (MemoryUsage) returned.get("memory.getNonHeapMemoryUsage");
        assertCounter(trace, "heap used", BYTES, heap.getUsed());
        assertCounter(trace, "heap committed", BYTES, heap.getCommitted());
        assertCounter(trace, "non-heap used", BYTES, nonHeap.getUsed());
        assertCounter(trace, "non-heap committed", BYTES, nonHeap.getCommitted());
        assertFalse(pools.isEmpty());
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage usage = (MemoryUsage) returned.get("pool " + pool.getName() + ".getUsage");
            assertCounter(trace, "pool: " + pool.getName() + " used", BYTES, usage.getUsed());
            assertCounter(trace, "pool: " + pool.getName() + " committed", BYTES, usage.getCommitted());
        }
        assertTrue(bufferPools.size() >= 2, "direct and mapped at least");
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            String prefix = "buffer pool: " + pool.getName();
            assertCounter(trace, prefix + " used", BYTES, (Long) returned.get("buffer " + pool.getName() + ".getMemoryUsed"));
            assertCounter(trace, prefix + " capacity", BYTES,
                    (Long) returned.get("buffer " + pool.getName() + ".getTotalCapacity"));
            assertCounter(trace, prefix + " buffers", COUNT, (Long) returned.get("buffer " + pool.getName() + ".getCount"));
        }
        assertCounter(trace, "loaded classes", COUNT, ((Integer) returned.get("classes.getLoadedClassCount")).longValue());
        int figures = 4 + 2 * pools.size() + 3 * bufferPools.size() + 1;
        assertEquals(figures, trace.trackNames(process.uuid()).size(), trace.trackNames(process.uuid())::toString);
    }

    @Test
    void aDirectBufferMovesTheDirectPoolsCountersByItsSize() throws Exception {
        Sampler sampler = new MemoryDataSource(process, null).sampler(sequence, DataSourceConfig.getDefaultInstance());
        int size = 3 * 1024 * 1024 + 5;

        settleDirectMemory();
        sample(sampler);
        ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        sample(sampler);
        Reference.reachabilityFence(buffer);
        DecodedSequences trace = decode();

        assertEquals(List.of(), trace.undecodable());
        assertMovedBy(trace, "buffer pool: direct used", size);
        assertMovedBy(trace, "buffer pool: direct capacity", size);
        assertMovedBy(trace, "buffer pool: direct buffers", 1);
    }

    @Test
    void aFigureIsWrittenOnlyWhenItChangesOrItsSequenceStartsAgainAndAnInvalidPoolIsSkipped() throws Exception {
        Map<String, Object> values = new HashMap<>();
        values.put("getHeapMemoryUsage", new MemoryUsage(0, 100, 1000, 2000));
        values.put("getNonHeapMemoryUsage", new MemoryUsage(0, 10, 20, -1));
        values.put("getUsage", new MemoryUsage(0, 50, 60, -1));
        values.put("getName", "Old Gen");
        values.put("isValid", true);
        values.put("getMemoryUsed", 4096L);
        values.put("getTotalCapacity", 4096L);
        values.put("getCount", 1L);
        values.put("getLoadedClassCount", 900);
        Sampler sampler = new MemorySampler(new CounterSet(sequence), fake(MemoryMXBean.class, values),
                List.of(fake(MemoryPoolMXBean.class, values)), List.of(fake(BufferPoolMXBean.class, values)),
                fake(ClassLoadingMXBean.class, values));

        sample(sampler);
        sample(sampler); // nothing changed
        values.put("getHeapMemoryUsage", new MemoryUsage(0, 150, 1000, 2000));
        values.put("getLoadedClassCount", 901);
        sample(sampler);
        values.put("isValid", false); // the pool was removed (a class loader's, a CodeHeap)
        values.put("getUsage", new MemoryUsage(0, 55, 60, -1));
        sample(sampler);
        // The service asks for the sequence's state again: every track is described and written anew.
        sequence.clearIncrementalState();
        sample(sampler);
        DecodedSequences trace = decode();

        assertEquals(List.of(), trace.undecodable());
        assertEquals(List.of(100L, 150L, 150L), values(trace, "heap used"));
        assertEquals(List.of(1000L, 1000L), values(trace, "heap committed"));
        assertEquals(List.of(10L, 10L), values(trace, "non-heap used"));
        assertEquals(List.of(50L), values(trace, "pool: Old Gen used"), "not read once invalid");
        assertEquals(List.of(4096L, 4096L), values(trace, "buffer pool: Old Gen used"));
        assertEquals(List.of(1L, 1L), values(trace, "buffer pool: Old Gen buffers"));
        assertEquals(List.of(900L, 901L, 901L), values(trace, "loaded classes"));
    }

    private void sample(Sampler sampler) {
        sequence.beginSample();
        sampler.sample(now);
        now += 1_000_000;
    }

    private DecodedSequences decode() throws Exception {
        sequence.close();
        return new DecodedSequences(context.read());
    }

    private List<Number> values(DecodedSequences trace, String name) {
        return trace.counterValues(trace.track(process.uuid(), name));
    }

    private void assertCounter(DecodedSequences trace, String name, CounterDescriptor.Unit unit, long value) {
        long track = trace.track(process.uuid(), name);
        CounterDescriptor.Unit written = trace.descriptors(track).get(0).getCounter().getUnit();
        assertEquals(unit, written, name + "'s unit");
        assertEquals(List.of(value), trace.counterValues(track), name);
    }

    /**
     * Frees now the direct buffers already unreachable: a collection finds them, and their cleaners give
     * their memory back, which must not happen between the test's two samples (a 24-byte buffer of this
     * JVM's own once moved the pool by 24 bytes less than the test's). Waits until the pool stays put.
     */
    private static void settleDirectMemory() throws InterruptedException {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        System.gc();
        long last = -1;
        for (int unchanged = 0, reads = 0; unchanged < 3 && reads < 100; reads++) {
            long used = direct.getMemoryUsed();
            unchanged = used == last ? unchanged + 1 : 0;
            last = used;
            Thread.sleep(20);
        }
    }

    private void assertMovedBy(DecodedSequences trace, String name, long delta) {
        List<Number> values = values(trace, name);
        assertEquals(2, values.size(), name + ": " + values);
        assertEquals(delta, values.get(1).longValue() - values.get(0).longValue(), name + ": " + values);
    }

    /** {@code real}, every call's result put into {@code returned} as "prefix.method" (the last one wins). */
    private static <T> T recording(Class<T> type, T real, String prefix, Map<String, Object> returned) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            try {
                Object result = method.invoke(real, args);
                returned.put(prefix + "." + method.getName(), result);
                return result;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    /** An MXBean whose methods return {@code values} by method name. */
    private static <T> T fake(Class<T> type, Map<String, Object> values) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (!values.containsKey(method.getName())) {
                throw new UnsupportedOperationException(method.getName());
            }
            return values.get(method.getName());
        }));
    }
}
