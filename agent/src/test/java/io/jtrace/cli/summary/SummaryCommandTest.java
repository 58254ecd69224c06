package io.jtrace.cli.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.ProcessDescriptor;
import io.jtrace.protos.SystemInfo;
import io.jtrace.protos.ThreadDescriptor;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TracePacketDefaults;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import io.jtrace.protos.TrackEventDefaults;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.output.TraceFileWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code jtrace summary} on a trace whose every count is known, damaged copies of it, and files that are no trace. */
class SummaryCommandTest {
    private static final String NL = System.lineSeparator();
    private static final long BOOT = 10_000_000_000L;
    private static final long MONO = 9_000_000_000L;
    private static final long REAL = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SummaryCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static TracePacket.Builder on(int sequence) {
        return TracePacket.newBuilder().setTrustedPacketSequenceId(sequence);
    }

    private static ClockSnapshot.Clock clock(int id, long value) {
        return ClockSnapshot.Clock.newBuilder().setClockId(id).setTimestamp(value).build();
    }

    /**
     * A trace shaped like jtrace's: the service's sequence 1, a track_event sequence on an incremental
     * clock, a jvm.gc sequence on CLOCK_MONOTONIC, a sequence with legacy descriptors and one using a
     * clock nothing defined; losses of every kind.
     */
    static List<TracePacket> knownTrace() {
        return List.of(
                on(1).setTimestamp(BOOT).setClockSnapshot(ClockSnapshot.newBuilder()
                        .addClocks(clock(6, BOOT)).addClocks(clock(3, MONO)).addClocks(clock(1, REAL))).build(),
                on(1).setTraceConfig(TraceConfig.newBuilder()
                        .addDataSources(source("track_event")).addDataSources(source("jvm.gc"))
                        .addDataSources(source("jvm.jmx"))).build(),
                on(1).setSystemInfo(SystemInfo.newBuilder().setNumCpus(2)).build(),
                // track_event: header with an incremental clock starting at MONO + 500
                on(2).setSequenceFlags(1).setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(64)
                                .setTrackEventDefaults(TrackEventDefaults.newBuilder().setTrackUuid(100)))
                        .setClockSnapshot(ClockSnapshot.newBuilder().addClocks(clock(3, MONO + 500))
                                .addClocks(clock(64, MONO + 500).toBuilder().setIsIncremental(true))).build(),
                on(2).setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(1)
                        .setProcess(ProcessDescriptor.newBuilder().setPid(42).setProcessName("app"))).build(),
                on(2).setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(100).setParentUuid(1)
                        .setThread(ThreadDescriptor.newBuilder().setPid(42).setTid(420))).build(),
                on(2).setTimestamp(1000).setSequenceFlags(2)
                        .setInternedData(InternedData.newBuilder().addEventNames(EventName.newBuilder().setIid(1).setName("work")))
                        .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setNameIid(1)).build(),
                on(2).setTimestamp(2000).setSequenceFlags(2).setPreviousPacketDropped(1)
                        .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END)).build(),
                on(2).setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(200).setParentUuid(1)
                        .setName("jtrace: lost track events").setCounter(CounterDescriptor.getDefaultInstance())).build(),
                on(2).setTimestamp(500).setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_COUNTER)
                        .setTrackUuid(200).setCounterValue(7)).build(),
                // jvm.gc: a collector track, a thread of its own, a slice 2.5 s after the trace's start
                on(3).setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(300).setParentUuid(1).setName("GC: G1 Young")).build(),
                on(3).setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(101).setParentUuid(1)
                        .setThread(ThreadDescriptor.newBuilder().setPid(42).setTid(421))).build(),
                on(3).setTimestamp(MONO + 2_500_000_000L).setTimestampClockId(3).setTrackEvent(TrackEvent.newBuilder()
                        .setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setTrackUuid(300).addCategories("gc").setName("pause")).build(),
                // legacy descriptors of another process, after a loss
                on(4).setPreviousPacketDropped(1).setThreadDescriptor(ThreadDescriptor.newBuilder().setPid(43).setTid(430)).build(),
                on(4).setProcessDescriptor(ProcessDescriptor.newBuilder().setPid(43).setProcessName("other")).build(),
                // a sequence-scoped clock no snapshot of its sequence defined
                on(5).setTimestamp(5).setTimestampClockId(64).setTrackEvent(TrackEvent.newBuilder()
                        .setType(TrackEvent.Type.TYPE_INSTANT).setName("lost in time")).build(),
                on(1).setTraceStats(TraceStats.newBuilder().setChunksDiscarded(4).addBufferStats(TraceStats.BufferStats
                        .newBuilder().setChunksOverwritten(3).setChunksDiscarded(1).setTraceWriterPacketLoss(2)
                        .setAbiViolations(1))).build());
    }

    private static TraceConfig.DataSource source(String name) {
        return TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName(name)).build();
    }

    static Path write(Path file, List<TracePacket> packets) throws IOException {
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            for (TracePacket p : packets) {
                byte[] bytes = p.toByteArray();
                writer.packet(bytes, 0, bytes.length, PacketSink.NO_TRAILER, 0);
            }
        }
        return file;
    }

    /** jvm.gc with no collection writes its sequence's header and the process: that is no unknown source. */
    @Test
    void aSequenceOfNothingButItsHeaderAndTheProcessIsCountedAsHeadersOnly() throws IOException {
        TrackDescriptor process = TrackDescriptor.newBuilder().setUuid(1)
                .setProcess(ProcessDescriptor.newBuilder().setPid(42)).build();
        Path file = write(dir.resolve("quiet.pftrace"), List.of(
                on(1).setTraceConfig(TraceConfig.newBuilder().addDataSources(source("jvm.gc"))).build(),
                on(2).setSequenceFlags(1).setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(3))
                        .build(),
                on(2).setTrackDescriptor(process).build(),
                on(3).setTrackDescriptor(process).build(),
                on(3).setTimestamp(5).setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT)
                        .setName("whose")).build(),
                // a header, then a loss: the rest was lost, not absent
                on(4).setSequenceFlags(1).build(),
                on(4).setPreviousPacketDropped(1).setTrackDescriptor(process).build()));
        assertEquals(0, run(file.toString()), err());
        assertTrue(out().contains("data sources: headers only (1 sequence, 2 packets), service (1 sequence, 1 packet), "
                + "unknown (2 sequences, 4 packets)"), out());
    }

    @Test
    void countsEverythingATraceHolds() throws IOException {
        Path file = write(dir.resolve("known.pftrace"), knownTrace());
        assertEquals(0, run(file.toString()), err());
        assertEquals(String.join(NL,
                file + ": " + String.format("%,d", Files.size(file)) + " bytes, 17 packets",
                "sequences:    5",
                "tracks:       5 (4 track events, 0 CPU samples)",
                "processes:    2",
                "  42       app: 2 threads",
                "  43       other: 1 thread",
                "threads:      3",
                "data sources: jvm.gc (1 sequence, 3 packets), service (1 sequence, 4 packets), track_event (1 sequence, "
                        + "7 packets), unknown (2 sequences, 3 packets)",
                "  configured: track_event, jvm.gc, jvm.jmx; no data from jvm.jmx",
                "time:         2.500 s on BOOTTIME, 2023-11-14T22:13:20Z to 2023-11-14T22:13:22.500Z",
                "  left out: 1 timestamps on undefined sequence clocks, 0 clocks no snapshot relates to BOOTTIME",
                "losses:       service lost: chunks_overwritten=3, chunks_discarded=5, trace_writer_packet_loss=2, "
                        + "abi_violations=1; 2 packets after a drop (previous_packet_dropped); 7 track events lost by writers; "
                        + "1 packet trace_processor would skip for their lost incremental state (left out above)",
                ""), out());
    }

    @Test
    void jsonCarriesTheSameCounts() throws IOException {
        Path file = write(dir.resolve("known.pftrace"), knownTrace());
        assertEquals(0, run(file.toString(), "--json"), err());
        String json = out();
        for (String expected : List.of("\"packets\":17,", "\"sequences\":5,", "\"threads\":3,",
                "{\"pid\":42,\"name\":\"app\",\"threads\":2}", "\"track_event\":{\"sequences\":1,\"packets\":7}",
                "\"configured_data_sources\":[\"track_event\",\"jvm.gc\",\"jvm.jmx\"]",
                "\"time\":{\"clock\":\"BOOTTIME\",\"first_ns\":10000000000,\"last_ns\":12500000000,\"duration_ns\":2500000000}",
                "\"chunks_overwritten\":3,", "\"previous_packet_dropped\":2,", "\"lost_track_events\":7,",
                "\"damage\":null")) {
            assertTrue(json.contains(expected), expected + " in " + json);
        }
        assertTrue(json.startsWith("{\"file\":\"" + file + "\"") && json.endsWith("}" + NL), json);
    }

    @Test
    void aTruncatedLastPacketIsReportedAndWhatPrecedesItSummarized() throws IOException {
        List<TracePacket> packets = knownTrace();
        Path whole = write(dir.resolve("whole.pftrace"), packets);
        byte[] bytes = Files.readAllBytes(whole);
        Path cut = dir.resolve("cut.pftrace");
        Files.write(cut, Arrays.copyOf(bytes, bytes.length - 3));
        int statsLength = packets.get(packets.size() - 1).getSerializedSize();
        long statsFrame = bytes.length - statsLength - 2; // tag + one-byte length

        assertEquals(0, run(cut.toString()), err());
        String text = out();
        assertTrue(text.startsWith(cut + ": " + String.format("%,d", bytes.length - 3) + " bytes, 16 packets" + NL
                + "DAMAGED: at byte " + statsFrame + " (after 16 packets): the last packet is cut off: it needs "
                + statsLength + " bytes, the file has " + (statsLength - 3) + " more; summarized up to there" + NL), text);
        assertTrue(text.contains("losses:       no trace_stats packet (the service's loss counters are unknown); "
                + "2 packets after a drop"), text);
    }

    @Test
    void aPacketThatDoesNotDecodeIsCountedAndNamedAndThePacketsAfterItSummarized() throws IOException {
        List<TracePacket> packets = knownTrace();
        Path file = dir.resolve("bad-packet.pftrace");
        long badFrame;
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            for (TracePacket p : packets.subList(0, 3)) {
                byte[] bytes = p.toByteArray();
                writer.packet(bytes, 0, bytes.length, PacketSink.NO_TRAILER, 0);
            }
            writer.flush();
            badFrame = writer.bytes();
            byte[] garbage = {0x08, (byte) 0xff}; // field 1, a varint cut short
            writer.packet(garbage, 0, garbage.length, PacketSink.NO_TRAILER, 0);
            for (TracePacket p : packets.subList(3, packets.size())) {
                byte[] bytes = p.toByteArray();
                writer.packet(bytes, 0, bytes.length, PacketSink.NO_TRAILER, 0);
            }
        }
        assertEquals(0, run(file.toString()), err());
        String text = out();
        assertTrue(text.startsWith(file + ": " + String.format("%,d", Files.size(file)) + " bytes, 17 packets" + NL
                + "DAMAGED: at byte " + badFrame + ": packet 3 does not decode ("), text);
        assertTrue(text.contains("sequences:    5" + NL), "the packets after it count: " + text);
        assertTrue(text.contains("; 1 packet that does not decode;"), text);
        assertTrue(text.contains("does not decode (") && text.contains("); skipped, the packets after it summarized" + NL),
                "says it went on past the packet, as it did: " + text);
        assertFalse(text.contains("summarized up to there"), text);
        out.reset();
        assertEquals(0, run(file.toString(), "--json"), err());
        assertTrue(out().contains("\"undecodable_packets\":1,"), out());
    }

    /**
     * A ring buffer overwrote a track_event sequence's header: what is left of it are deltas on a clock
     * and names nothing in the trace defines. trace_processor skips those packets until the sequence
     * clears its state again; so does the summary, instead of reading the deltas as times near zero.
     */
    @Test
    void packetsWhoseIncrementalStateWasLostAreSkippedAsTraceProcessorSkipsThem() throws IOException {
        List<TracePacket> packets = new java.util.ArrayList<>(knownTrace().subList(0, 3));
        packets.add(on(7).setTimestamp(30).setSequenceFlags(2).setPreviousPacketDropped(1)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setNameIid(1)).build());
        packets.add(on(7).setTimestamp(40).setSequenceFlags(2)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END)).build());
        packets.add(on(7).setSequenceFlags(1).setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(64))
                .setClockSnapshot(ClockSnapshot.newBuilder().addClocks(clock(3, MONO + 1_000_000_000L))
                        .addClocks(clock(64, MONO + 1_000_000_000L).toBuilder().setIsIncremental(true))).build());
        packets.add(on(7).setTimestamp(500).setSequenceFlags(2)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT).setName("kept")).build());
        Path file = write(dir.resolve("overwritten.pftrace"), packets);

        assertEquals(0, run(file.toString(), "--json"), err());
        String json = out();
        for (String expected : List.of("\"track_events\":1,", "\"skipped_needs_incremental_state\":2}",
                "\"first_ns\":10000000000,", "\"last_ns\":11000000500,")) {
            assertTrue(json.contains(expected), expected + " in " + json);
        }
    }

    @Test
    void filesThatAreNoTraceAreRefusedNamingWhy() throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        assertEquals(1, run(text.toString()));
        assertEquals("jtrace summary: " + text + " is not a Perfetto trace: it starts with byte 0x68 (a trace starts "
                + "with 0x0a, its first packet)" + NL, err());

        err.reset();
        Path empty = Files.write(dir.resolve("empty.pftrace"), new byte[0]);
        assertEquals(1, run(empty.toString()));
        assertEquals("jtrace summary: " + empty + " is empty: not a trace" + NL, err());

        err.reset();
        Path garbage = Files.write(dir.resolve("garbage.pftrace"), new byte[] {0x0a, 0x02, (byte) 0xff, (byte) 0xff});
        assertEquals(1, run(garbage.toString()));
        assertTrue(err().startsWith("jtrace summary: " + garbage + " is not a Perfetto trace: its first packet does not "
                + "decode"), err());

        err.reset();
        Path blank = Files.writeString(dir.resolve("blank.txt"), "\n\n");
        assertEquals(1, run(blank.toString()));
        assertEquals("jtrace summary: " + blank + " holds no whole packet: at byte 0 (after 0 packets): the last packet "
                + "is cut off: it needs 10 bytes, the file has 0 more" + NL, err());

        err.reset();
        assertEquals(1, run(dir.resolve("missing.pftrace").toString()));
        assertEquals("jtrace summary: " + dir.resolve("missing.pftrace") + ": no such file" + NL, err());
        assertEquals("", out());
    }

    @Test
    void commandLineErrorsExitWith2() {
        assertEquals(2, run());
        assertEquals(2, run("a.pftrace", "b.pftrace"));
        assertEquals(2, run("--frob", "a.pftrace"));
        assertTrue(err().endsWith("jtrace summary: unknown option '--frob'" + NL), err());
        assertEquals(0, run("--help"));
        assertEquals(SummaryCommand.usage(), out());
    }
}
