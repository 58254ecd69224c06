package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.it.trace.LossSummary;
import io.jtrace.it.trace.TrackEventDecoder;
import io.jtrace.it.workload.FloodWorkload;
import io.jtrace.it.workload.OwnApiCopyWorkload;
import io.jtrace.protos.TrackDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A flood through the real agent and its service, with a small trace buffer: sixty-four threads emit
 * slices as fast as they can into {@code start,file=…,buffer=1m} (a trace buffer a sixteenth of the
 * shared memory buffer) for 1 s. The agent's threads append their own chunks to a streamed file, and
 * write past the file's ring when it is full, so this flood no longer makes them drop events (before,
 * it did: 96 % of them); whatever it loses or not, the trace must keep only what it can use and count
 * the rest, exactly:
 * <ul>
 *   <li>every event in the file decodes with its name and category: none needs interned state its
 *       sequence lost (trace_processor's {@code packet_skipped_seq_needs_incremental_state_invalid}),
 *       every packet has its sequence id, every named slice is one the workload used;
 *   <li>the ring never overwrote a chunk (the file session drains it before it could), so what was
 *       lost was lost at the writers, where it is counted per event: events in the file plus the
 *       agent's {@code jtrace: lost track events} counter equal the events emitted, exactly; and the
 *       agent's one warning at stop names the same number (none when nothing was lost).
 * </ul>
 * Writers that drop events under overload, and the service's count of them, are proven through the
 * service path, which every chunk takes there: producers in another process
 * ({@code DaemonFloodCountsEveryEventTest}) and a session kept in a ring ({@code TracingMBeanTest}).
 */
class OverloadLosesOnlyWhatItCountsTest {
    private static final int THREADS = 64;
    private static final long MILLIS = 1000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aFloodIntoASmallBufferLeavesOnlyDecodableEventsAndCountsEveryLostOne(String jdk) throws Exception {
        flood(jdk, ChildJvm.DEFAULT_JVM_FLAGS, FloodWorkload.class.getName(), String.valueOf(THREADS), String.valueOf(MILLIS));
    }

    /** The same flood from a web application with its own copy of the API, which the agent binds through its adapter. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aFloodThroughAnApplicationsOwnApiCopyLosesOnlyWhatItCounts(String jdk) throws Exception {
        List<String> flags = new ArrayList<>(ChildJvm.DEFAULT_JVM_FLAGS);
        flags.add("-Djtrace.apiJar=" + Path.of(System.getProperty("jtrace.apiJar")).toAbsolutePath());
        flood(jdk, flags, OwnApiCopyWorkload.class.getName(), FloodWorkload.class.getName(), String.valueOf(THREADS),
                String.valueOf(MILLIS));
    }

    private void flood(String jdk, List<String> jvmFlags, String mainClass, String... args) throws Exception {
        Path trace = dir.resolve("flood.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,file=" + trace + ",buffer=1m,sources=track_event",
                trace, dir, jvmFlags, ChildJvm.DEFAULT_TIMEOUT, mainClass, args);
        Map<String, Long> reported = result.report();
        long emittedEvents = 2 * reported.getOrDefault("SLICES", -1L);
        FloodTrace flood = new FloodTrace();
        TrackEventDecoder decoder = TrackEventDecoder.decode(trace, flood);
        LossSummary losses = decoder.losses();
        long eventsInFile = 2 * flood.slices + decoder.unendedSlices() + decoder.unmatchedEnds();
        long counted = flood.lostCounter();
        String line = String.format("OVERLOAD %s %s: %d events emitted, %d in the file (%d slices, %d cut), %d counted"
                        + " lost; trace %.1f MB; %s", jdk, mainClass.substring(mainClass.lastIndexOf('.') + 1), emittedEvents, eventsInFile, flood.slices,
                decoder.unendedSlices() + decoder.unmatchedEnds(), counted, Files.size(trace) / 1e6, losses);
        System.out.println(line);
        assertAll(line,
                () -> assertEquals(Set.of("SLICES"), reported.keySet(), "the child's stdout holds only its report"),
                () -> assertEquals(0, decoder.eventsSkippedForLostState(),
                        "events that need interned state their sequence lost"),
                () -> assertEquals(0, decoder.packetsWithoutSequenceId(), "packets without trusted_packet_sequence_id"),
                () -> assertEquals(List.of(), flood.malformed, "slices with a name or category the workload never used"),
                () -> assertTrue(losses.traceStatsPackets() > 0, "the service reported its counters"),
                () -> assertEquals(0, losses.chunksDiscarded() + losses.invalidPackets() + losses.patchesDiscarded(),
                        "chunks or packets refused by the service"),
                () -> assertEquals(0, losses.buffers().stream().mapToLong(LossSummary.BufferLoss::chunksOverwritten).sum(),
                        "chunks the ring overwrote before the file got them"),
                () -> assertTrue(flood.slices > 0, "slices in the file"),
                () -> assertEquals(emittedEvents, eventsInFile + counted,
                        "events emitted = events in the file + events counted as lost"),
                () -> assertEquals(counted == 0 ? List.of()
                                : List.of("WARN TrackEventDataSource - jtrace track_event: " + counted + " event(s) lost"),
                        warnings(result.stderr()), "the agent's stderr: one warning with the count, if any was lost"));
    }

    /**
     * The same flood into a session kept in a 1 MiB ring (written at stop): the ring turns many times,
     * overwriting each sequence's interned names again and again. The file must still hold only events
     * that decode with their names; the service counts the overwritten chunks and the packets it left out
     * because their names went with them. Each chunk of a ring session opens with its sequence's
     * incremental state, so of what the ring kept at most the event that opened each sequence's oldest
     * chunk is left out (a fixed 5 s re-intern period left none of it decodable; clears asked for by the
     * service every eighth of a turn came too late under this flood, leaving out most of it).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aFloodIntoASmallRingLeavesOnlyDecodableEventsAndCountsWhatWasLeftOut(String jdk) throws Exception {
        Path trace = dir.resolve("ring.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,ring,file=" + trace
                        + ",buffer=1m,sources=track_event", trace, dir, ChildJvm.DEFAULT_JVM_FLAGS, ChildJvm.DEFAULT_TIMEOUT,
                FloodWorkload.class.getName(), String.valueOf(THREADS), String.valueOf(MILLIS));
        FloodTrace flood = new FloodTrace();
        TrackEventDecoder decoder = TrackEventDecoder.decode(trace, flood);
        LossSummary losses = decoder.losses();
        long overwritten = losses.buffers().stream().mapToLong(LossSummary.BufferLoss::chunksOverwritten).sum();
        long leftOut = losses.buffers().stream().mapToLong(LossSummary.BufferLoss::packetsWithoutIncrementalState).sum();
        String line = String.format("RING %s: %d slices emitted, %d in the file, %d chunks overwritten, %d packets left "
                        + "out for lost names; trace %.1f MB; %s", jdk, result.report().getOrDefault("SLICES", -1L),
                flood.slices, overwritten, leftOut, Files.size(trace) / 1e6, losses);
        System.out.println(line);
        assertAll(line,
                () -> assertEquals(0, decoder.eventsSkippedForLostState(),
                        "events that need interned state their sequence lost"),
                () -> assertEquals(0, decoder.packetsWithoutSequenceId(), "packets without trusted_packet_sequence_id"),
                () -> assertEquals(List.of(), flood.malformed, "slices with a name or category the workload never used"),
                () -> assertTrue(overwritten > 0, "the ring turned (else this test proves nothing)"),
                () -> assertTrue(flood.slices > 0, "slices in the file"),
                () -> assertTrue(leftOut <= 2L * THREADS, "at most one event per sequence's oldest chunk left out"));
    }

    /** stderr's lines, each cut before its parenthesised detail. */
    private static List<String> warnings(String stderr) {
        List<String> lines = new ArrayList<>();
        for (String l : stderr.split("\\R")) {
            if (!l.isBlank()) {
                int detail = l.indexOf(" (");
                lines.add(detail < 0 ? l : l.substring(0, detail));
            }
        }
        return lines;
    }

    /** The workload's slices and the agent's lost-events counter, as the decoder finds them. */
    private static final class FloodTrace implements TrackEventDecoder.Listener {
        final List<String> malformed = new ArrayList<>();
        final List<Long> lostCounterTracks = new ArrayList<>();
        final List<Double> lostCounterValues = new ArrayList<>();
        long slices;

        @Override
        public void track(TrackDescriptor d) {
            if (d.hasCounter() && TrackEventDataSource.LOST_EVENTS_TRACK.equals(d.getName())) {
                lostCounterTracks.add(d.getUuid());
            }
        }

        @Override
        public void slice(long track, String name, List<String> categories, long begin, long end) {
            if (!categories.equals(List.of(FloodWorkload.CATEGORY)) || !name.matches("slice-[0-" + (FloodWorkload.NAMES - 1) + "]")) {
                if (malformed.size() < 20) {
                    malformed.add(name + " " + categories + " on track " + track);
                }
                return;
            }
            slices++;
        }

        @Override
        public void counter(long track, double value, long timestamp) {
            if (lostCounterTracks.contains(track)) {
                lostCounterValues.add(value);
            }
        }

        /** The counter's one sample, written at stop; -1 when there is not exactly one. */
        long lostCounter() {
            return lostCounterValues.size() == 1 ? (long) (double) lostCounterValues.get(0) : -1;
        }
    }
}
