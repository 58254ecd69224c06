package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.JvmWorkload;
import io.jtrace.it.workload.ManyThreadsWorkload;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jvm.threads, jvm.memory and jvm.jmx in a child JVM (JDK 17 and 25) that mostly does not use the
 * tracing API, against the ground truth the child prints: every thread it started has a track with its
 * OS tid and name, the rename is seen, the BLOCKED stretch is where the child made it, CPU time grows on
 * the busy threads, and the direct buffer it allocated shows in the memory and JMX counters.
 */
class JvmSourcesDescribeTheJvmTest {
    private static final long PERIOD_MS = 20;
    /** A state change is seen at the first sample after it; the sampler may itself run late on a busy machine. */
    private static final long SLACK_NANOS = 150_000_000L;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void everyThreadItsStatesCpuTimeAndMemoryAreInTheTrace(String jdk) throws Exception {
        Path trace = dir.resolve("jvm.pftrace");
        String options = "start,file=" + trace + ",threads_period=" + PERIOD_MS + "ms,memory_period=50ms,jmx_period=50ms"
                + ",jmx=java.lang:type=Memory/HeapMemoryUsage/used+java.nio:type=BufferPool;name=direct/MemoryUsed";
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), options, trace, dir, ChildJvm.DEFAULT_JVM_FLAGS,
                ChildJvm.DEFAULT_TIMEOUT, JvmWorkload.class.getName());
        assertEquals("", result.stderr(), "the agent prints nothing");
        Map<String, Long> truth = result.report();
        TraceModel model = TraceModel.read(trace);
        assertEquals(List.of(), model.problems);

        List<TrackDescriptor> descriptors = model.packets.stream().filter(TracePacket::hasTrackDescriptor)
                .map(TracePacket::getTrackDescriptor).collect(Collectors.toList());
        for (String name : List.of("busy-worker-0", "busy-worker-1", "busy-worker-2", "blocked-waiter")) {
            long tid = truth.get("TID_" + name);
            TrackDescriptor thread = threadTrack(descriptors, tid);
            assertNotNull(thread, () -> name + " (tid " + tid + ") has no thread track");
            assertEquals(name, thread.getThread().getThreadName());
            assertEquals(result.pid(), thread.getThread().getPid());
        }

        // The rename: both names described on the same track, the last one last.
        long renamedTid = truth.get("RENAMED_TID");
        List<String> names = descriptors.stream().filter(d -> d.hasThread() && d.getThread().getTid() == renamedTid)
                .map(d -> d.getThread().getThreadName()).distinct().collect(Collectors.toList());
        assertEquals(List.of("before-rename", "after-rename"), names);
        assertEquals("after-rename", model.tracks.get(threadTrack(descriptors, renamedTid).getUuid()).getThread().getThreadName());
        long renamedState = childTrack(model, threadTrack(descriptors, renamedTid).getUuid(), "Java state");
        List<Map<String, String>> renames = model.events.stream()
                .filter(e -> e.track() == renamedState && "renamed".equals(e.name()))
                .map(e -> e.event().getDebugAnnotationsList().stream()
                        .collect(Collectors.toMap(a -> a.getName(), a -> a.getStringValue())))
                .collect(Collectors.toList());
        assertEquals(List.of(Map.of("from", "before-rename", "to", "after-rename")), renames, "the rename's instant");

        // BLOCKED where the child blocked the waiter, on the waiter's state track.
        long waiterTrack = threadTrack(descriptors, truth.get("TID_blocked-waiter")).getUuid();
        long stateTrack = childTrack(model, waiterTrack, "Java state");
        List<TraceModel.SliceRecord> blocked = model.slices.stream()
                .filter(s -> s.track() == stateTrack && s.name().equals("BLOCKED")).collect(Collectors.toList());
        assertEquals(1, blocked.size(), () -> "one BLOCKED stretch on the waiter: " + blocked);
        long from = truth.get("BLOCKED_FROM");
        long releasing = truth.get("BLOCKED_RELEASING");
        long to = truth.get("BLOCKED_TO");
        TraceModel.SliceRecord b = blocked.get(0);
        assertTrue(b.begin() >= from - SLACK_NANOS && b.begin() <= from + SLACK_NANOS,
                () -> "BLOCKED begins " + (b.begin() - from) / 1_000_000 + " ms after the child blocked it");
        assertTrue(b.end() >= releasing - PERIOD_MS * 1_000_000 && b.end() <= to + SLACK_NANOS,
                () -> "BLOCKED ends " + (b.end() - releasing) / 1_000_000 + " ms after the child began to release it, "
                        + (b.end() - to) / 1_000_000 + " ms after it had");

        // CPU time: what the worker read of its own when it stopped spinning, then it idled for 300 ms.
        long workerTrack = threadTrack(descriptors, truth.get("TID_busy-worker-1")).getUuid();
        long cpuTrack = childTrack(model, workerTrack, "CPU time");
        double cpu = model.counters.stream().filter(c -> c.track() == cpuTrack).mapToDouble(TraceModel.CounterSample::value)
                .max().orElse(0);
        long ownCpu = truth.get("CPU_busy-worker-1");
        assertTrue(cpu >= ownCpu && cpu <= ownCpu + 5_000_000, () -> "busy-worker-1 read " + ownCpu / 1e6
                + " ms of CPU time; its counter reached " + cpu / 1e6 + " ms");

        // Start and end of threads that lived inside the session, on their state tracks.
        List<String> instants = instantsOn(model, stateTrack);
        assertTrue(instants.contains("thread start") && instants.contains("thread end"), () -> "waiter's instants: " + instants);

        // The API's events of a thread land on the track jvm.threads describes for it.
        long apiTid = truth.get("TID_busy-worker-0");
        List<TracePacket> describing = model.packets.stream()
                .filter(p -> p.hasTrackDescriptor() && p.getTrackDescriptor().getThread().getTid() == apiTid)
                .collect(Collectors.toList());
        assertEquals(1, describing.stream().map(p -> p.getTrackDescriptor().getUuid()).distinct().count(),
                "one track uuid per thread, whoever describes it");
        assertTrue(describing.stream().map(TracePacket::getTrustedPacketSequenceId).distinct().count() >= 2,
                "described by jvm.threads and by the thread's own track_event sequence");

        // Memory and JMX counters follow the direct buffer the child allocated.
        long direct = truth.get("DIRECT_BYTES");
        assertTrue(maxOn(model, "buffer pool: direct used") >= direct, "jvm.memory's direct pool counter");
        assertTrue(maxOn(model, "heap used") > 0, "jvm.memory's heap counter");
        assertTrue(maxOn(model, "loaded classes") > 100, "jvm.memory's loaded classes");
        assertTrue(maxOn(model, "java.nio:name=direct,type=BufferPool/MemoryUsed") >= direct, "jvm.jmx's attribute");
        assertTrue(maxOn(model, "java.lang:type=Memory/HeapMemoryUsage/used") > 0, "jvm.jmx's composite key");
    }

    /**
     * The scale the issue names: 1,000 threads started during the session, half of them with names whose
     * native form is ambiguous, each on a track of its own with its OS tid and its name; the agent prints
     * nothing.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aThousandThreadsStartedDuringTheSessionEachGetTheirOwnTrack(String jdk) throws Exception {
        Path trace = dir.resolve("many.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,file=" + trace + ",sources=jvm.threads",
                trace, dir, ChildJvm.DEFAULT_JVM_FLAGS, ChildJvm.DEFAULT_TIMEOUT, ManyThreadsWorkload.class.getName(), "1000");
        assertEquals("", result.stderr(), "the agent prints nothing");
        Map<String, Long> truth = result.report();
        assertEquals(1000, truth.size());
        TraceModel model = TraceModel.read(trace);
        assertEquals(List.of(), model.problems);
        Map<Long, String> namesByTid = new java.util.HashMap<>();
        for (TracePacket p : model.packets) {
            if (p.hasTrackDescriptor() && p.getTrackDescriptor().hasThread()) {
                namesByTid.put(p.getTrackDescriptor().getThread().getTid(), p.getTrackDescriptor().getThread().getThreadName());
            }
        }
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Long> e : truth.entrySet()) {
            String name = e.getKey().substring("TID_".length());
            if (!name.equals(namesByTid.get(e.getValue()))) {
                wrong.add(name + " (tid " + e.getValue() + ") -> " + namesByTid.get(e.getValue()));
            }
        }
        assertEquals(List.of(), wrong, "threads without their own track, or on another's");
    }

    private static TrackDescriptor threadTrack(List<TrackDescriptor> descriptors, long tid) {
        return descriptors.stream().filter(d -> d.hasThread() && d.getThread().getTid() == tid).findFirst().orElse(null);
    }

    private static long childTrack(TraceModel model, long parent, String name) {
        return model.tracks.values().stream().filter(d -> d.getParentUuid() == parent && d.getName().equals(name))
                .map(TrackDescriptor::getUuid).findFirst()
                .orElseThrow(() -> new AssertionError("no track '" + name + "' under " + parent));
    }

    private static List<String> instantsOn(TraceModel model, long track) {
        List<String> names = new ArrayList<>();
        for (TracePacket p : model.packets) {
            if (p.hasTrackEvent() && p.getTrackEvent().getType() == TrackEvent.Type.TYPE_INSTANT
                    && p.getTrackEvent().getTrackUuid() == track) {
                names.add(p.getTrackEvent().getName());
            }
        }
        return names;
    }

    private static double maxOn(TraceModel model, String trackName) {
        List<Long> uuids = model.tracks.values().stream().filter(d -> Objects.equals(d.getName(), trackName))
                .map(TrackDescriptor::getUuid).collect(Collectors.toList());
        assertEquals(1, uuids.size(), () -> "one counter track named '" + trackName + "'");
        return model.counters.stream().filter(c -> c.track() == uuids.get(0)).mapToDouble(TraceModel.CounterSample::value)
                .max().orElseThrow(() -> new AssertionError("no sample on '" + trackName + "'"));
    }
}
