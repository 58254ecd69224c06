package io.jtrace.cli.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.PerfSample;
import io.jtrace.protos.ThreadDescriptor;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import org.junit.jupiter.api.Test;

/** Each jtrace data source is told by the marks its packets carry, as the sources write them. */
class SourceOfSequenceTest {
    private static TracePacket track(String name, boolean counter) {
        TrackDescriptor.Builder d = TrackDescriptor.newBuilder().setUuid(1).setName(name);
        if (counter) {
            d.setCounter(CounterDescriptor.getDefaultInstance());
        }
        return TracePacket.newBuilder().setTrackDescriptor(d).build();
    }

    private static TracePacket interning(String category) {
        return TracePacket.newBuilder().setInternedData(InternedData.newBuilder()
                .addEventCategories(EventCategory.newBuilder().setIid(1).setName(category))).build();
    }

    @Test
    void eachSourceIsToldByItsMarks() {
        assertEquals("service", SourceOfSequence.of(TracePacket.newBuilder().setTraceConfig(TraceConfig.getDefaultInstance()).build()));
        assertEquals("jvm.gc", SourceOfSequence.of(track("GC: G1 Young Generation", false)));
        assertEquals("jvm.gc", SourceOfSequence.of(track("heap used at GC", true)));
        assertEquals("jvm.gc", SourceOfSequence.of(TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder()
                .addCategories("gc").setName("minor GC")).build()));
        assertEquals("jvm.threads", SourceOfSequence.of(track("Java state", false)));
        assertEquals("jvm.threads", SourceOfSequence.of(track("CPU time", true)));
        assertEquals("jvm.memory", SourceOfSequence.of(track("heap used", true)));
        assertEquals("jvm.memory", SourceOfSequence.of(track("pool: G1 Eden Space committed", true)));
        assertEquals("jvm.memory", SourceOfSequence.of(track("buffer pool: direct buffers", true)));
        assertEquals("jvm.jmx", SourceOfSequence.of(track("java.lang:type=Threading/ThreadCount", true)));
        assertEquals("track_event", SourceOfSequence.of(track("jtrace: lost track events", true)));
        assertEquals("track_event", SourceOfSequence.of(interning("db")));
        assertEquals("track_event", SourceOfSequence.of(TracePacket.newBuilder().setInternedData(InternedData.newBuilder()
                .addEventNames(EventName.newBuilder().setIid(1).setName("query"))).build()));
        assertEquals("jvm.jfr", SourceOfSequence.of(interning("jfr")));
        assertEquals("track_event", SourceOfSequence.of(TracePacket.newBuilder().setClockSnapshot(
                io.jtrace.protos.ClockSnapshot.newBuilder().addClocks(io.jtrace.protos.ClockSnapshot.Clock.newBuilder()
                        .setClockId(64).setTimestamp(5).setIsIncremental(true))).build()),
                "a sequence header's incremental clock");
        assertEquals("jvm.jfr", SourceOfSequence.of(TracePacket.newBuilder().setPerfSample(PerfSample.newBuilder().setTid(7)).build()));
    }

    @Test
    void packetsAnySourceWritesTellNothing() {
        assertNull(SourceOfSequence.of(TracePacket.newBuilder().setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(2)
                .setThread(ThreadDescriptor.newBuilder().setPid(1).setTid(2))).build()));
        // A JFR counter track (<event type>.<field>) and a counter named like memory's but without a counter.
        assertNull(SourceOfSequence.of(track("jdk.CPULoad.machineTotal", true)));
        assertNull(SourceOfSequence.of(track("heap used", false)));
        assertNull(SourceOfSequence.of(TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName("x")).build()));
        assertNull(SourceOfSequence.of(TracePacket.newBuilder().setClockSnapshot(io.jtrace.protos.ClockSnapshot.newBuilder()
                .addClocks(io.jtrace.protos.ClockSnapshot.Clock.newBuilder().setClockId(6).setTimestamp(5))).build()),
                "the service's clock snapshots");
    }
}
