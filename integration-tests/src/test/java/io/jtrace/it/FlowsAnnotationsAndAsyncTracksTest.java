package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.FlowWorkload;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The application API's flows, debug annotations and async tracks through the real agent (JDK 17 and
 * 25): each request's flow links exactly its produce slice (on the producer thread) to its consume slice
 * (on the consumer thread), the annotations arrive with their types, and each request's async track holds
 * one slice begun on one thread and ended on the other.
 */
class FlowsAnnotationsAndAsyncTracksTest {
    private static final int REQUESTS = 50;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void flowsLinkTheRightSlicesAcrossThreadsAndAsyncTracksSpanThem(String jdk) throws Exception {
        Path trace = dir.resolve("flows.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,file=" + trace + ",sources=track_event", trace,
                dir, ChildJvm.DEFAULT_JVM_FLAGS, ChildJvm.DEFAULT_TIMEOUT, FlowWorkload.class.getName(), String.valueOf(REQUESTS));
        assertEquals("", result.stderr());
        Map<String, Long> truth = result.report();
        assertEquals(REQUESTS, truth.get("REQUESTS"));
        TraceModel model = TraceModel.read(trace);
        assertEquals(List.of(), model.problems);

        // Slice begins by name (resolved through each sequence's interning), with their flow ids.
        Map<String, TrackEvent> begins = new HashMap<>();
        for (TraceModel.EventRecord e : model.events) {
            if (e.event().getType() == TrackEvent.Type.TYPE_SLICE_BEGIN && e.name() != null
                    && (e.name().startsWith("produce-") || e.name().startsWith("consume-"))) {
                assertEquals(null, begins.put(e.name(), e.event()), () -> "slice " + e.name() + " begins twice");
            }
        }
        Map<String, Long> threadOf = threadTracksByName(model);
        for (int i = 0; i < REQUESTS; i++) {
            long flow = truth.get("FLOW_" + i);
            TrackEvent produce = begins.get("produce-" + i);
            TrackEvent consume = begins.get("consume-" + i);
            assertEquals(List.of(flow), produce.getFlowIdsList(), "produce-" + i + " starts its request's flow");
            assertEquals(List.of(flow), consume.getTerminatingFlowIdsList(), "consume-" + i + " ends it");
            assertEquals(List.of(), consume.getFlowIdsList());
            Map<String, DebugAnnotation> args = produce.getDebugAnnotationsList().stream()
                    .collect(Collectors.toMap(DebugAnnotation::getName, a -> a));
            assertEquals(i, args.get("index").getIntValue());
            assertEquals(i / 2.0, args.get("ratio").getDoubleValue());
            assertEquals(i % 2 == 0, args.get("even").getBoolValue());
            assertEquals("req-" + i, args.get("label").getStringValue());
        }
        // Each flow's two ends are on the two threads' tracks.
        for (TraceModel.SliceRecord s : model.slices) {
            if (s.name().startsWith("produce-")) {
                assertEquals(threadOf.get("producer"), s.track());
            } else if (s.name().startsWith("consume-")) {
                assertEquals(threadOf.get("consumer"), s.track());
            }
        }

        // Async tracks: one per request, under the process, each with one "request" slice.
        Map<String, TrackDescriptor> asyncTracks = model.tracks.values().stream().filter(d -> d.getName().startsWith("request-"))
                .collect(Collectors.toMap(TrackDescriptor::getName, d -> d));
        assertEquals(REQUESTS, asyncTracks.size());
        for (TrackDescriptor d : asyncTracks.values()) {
            assertTrue(d.getParentUuid() != 0 && model.tracks.get(d.getParentUuid()).hasProcess(), d.getName() + " under the process");
            List<TraceModel.SliceRecord> onIt = model.slices.stream().filter(s -> s.track() == d.getUuid()).collect(Collectors.toList());
            assertEquals(1, onIt.size(), () -> d.getName() + ": " + onIt);
            assertEquals("request", onIt.get(0).name());
            assertTrue(onIt.get(0).end() > onIt.get(0).begin());
        }
    }

    private static Map<String, Long> threadTracksByName(TraceModel model) {
        Map<String, Long> result = new HashMap<>();
        for (TrackDescriptor d : model.tracks.values()) {
            if (d.hasThread()) {
                result.put(d.getThread().getThreadName(), d.getUuid());
            }
        }
        return result;
    }
}
