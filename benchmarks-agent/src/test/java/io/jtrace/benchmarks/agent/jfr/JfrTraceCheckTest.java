package io.jtrace.benchmarks.agent.jfr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.PerfSample;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JfrTraceCheckTest {
    @TempDir
    Path dir;

    private static TracePacket.Builder event(int sequence, TrackEvent.Type type, long nameIid) {
        return TracePacket.newBuilder().setTrustedPacketSequenceId(sequence).setSequenceFlags(2).setTimestamp(5)
                .setTrackEvent(TrackEvent.newBuilder().setType(type).setNameIid(nameIid).setTrackUuid(9));
    }

    private static InternedData.Builder names(String... names) {
        InternedData.Builder interned = InternedData.newBuilder();
        for (int i = 0; i < names.length; i++) {
            interned.addEventNames(EventName.newBuilder().setIid(i + 1).setName(names[i]));
        }
        return interned;
    }

    private static TracePacket counter(long track) {
        return TracePacket.newBuilder().setTrustedPacketSequenceId(3).setTimestamp(5)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_COUNTER).setTrackUuid(track)
                        .setDoubleCounterValue(1)).build();
    }

    @Test
    void countsSlicesAndInstantsByInternedNameCountersByTheirTracksTypeAndSamples() throws Exception {
        Trace trace = Trace.newBuilder()
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3).setSequenceFlags(1)
                        .setInternedData(names("jdk.ThreadPark", "jdk.JavaErrorThrow")))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 1))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_END, 0)) // the end of the same park: not a second event
                .addPacket(event(3, TrackEvent.Type.TYPE_INSTANT, 2))
                // The sequence starts over and interns the same iids for other names.
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3).setSequenceFlags(1)
                        .setInternedData(names("jdk.SocketRead")))
                .addPacket(event(3, TrackEvent.Type.TYPE_SLICE_BEGIN, 1))
                // Another sequence's iid 1 is its own.
                .addPacket(event(4, TrackEvent.Type.TYPE_INSTANT, 1).setInternedData(names("jdk.ThreadPark")))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3)
                        .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(20).setName("jdk.GCHeapSummary.heapUsed")))
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(3)
                        .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(21).setName("jtrace: lost track events")))
                .addPacket(counter(20))
                .addPacket(counter(20))
                .addPacket(counter(21)) // not a JFR type's counter
                .addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(6).setTimestamp(5)
                        .setPerfSample(PerfSample.newBuilder().setPid(1).setTid(2)))
                .build();
        Path file = dir.resolve("t.pftrace");
        Files.write(file, trace.toByteArray());

        Map<String, Long> counts = JfrTraceCheck.traceCounts(file, Set.of("jdk.GCHeapSummary", "jdk.ThreadPark"));

        assertEquals(Map.of("jdk.ThreadPark", 2L, "jdk.JavaErrorThrow", 1L, "jdk.SocketRead", 1L,
                "jdk.GCHeapSummary", 2L, JfrTraceCheck.SAMPLES, 1L), counts);
    }

    @Test
    void aCounterTrackBelongsToTheLongestTypeItsNameStartsWith() {
        Set<String> types = Set.of("my.Event", "my.Event.Nested", "jdk.CPULoad");
        assertEquals("my.Event.Nested", JfrTraceCheck.typeOfCounterTrack("my.Event.Nested.value worker (12)", types));
        assertEquals("my.Event", JfrTraceCheck.typeOfCounterTrack("my.Event.heapSpace.committedSize", types));
        assertNull(JfrTraceCheck.typeOfCounterTrack("jdk.CPULoadX.user", types));
        assertNull(JfrTraceCheck.typeOfCounterTrack(null, types));
    }
}
