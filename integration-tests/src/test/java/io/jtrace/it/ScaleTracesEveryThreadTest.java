package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.AgentOptions;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.it.trace.LossSummary;
import io.jtrace.it.trace.TrackEventDecoder;
import io.jtrace.it.workload.ScaleWorkload;
import io.jtrace.protos.ThreadDescriptor;
import io.jtrace.protos.TrackDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.function.LongToIntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The product's promise at the size of real services: with the default options
 * ({@code -javaagent:jtrace.jar=start,file=...}, so the embedded 32 MiB SMB and 8 MiB trace buffer),
 * every slice of every thread is in the trace, on its own thread's track, and nothing is lost. A child
 * JVM runs {@link ScaleWorkload}; its trace (tens to over a hundred MB) is streamed through
 * {@link TrackEventDecoder} and checked with exact counts:
 * <ul>
 *   <li>the complete slices in the trace are exactly the ones the workload emitted, each thread's
 *       {@code work-0 … work-<n-1>} once, on a track whose descriptor names that thread (platform: a
 *       thread track with the child's pid and an OS tid; virtual: {@code <name or "virtual thread">
 *       #<java id>} under the process track);
 *   <li>nothing lost by any account: trace_stats (packet loss, chunks overwritten or discarded, ABI
 *       violations, ...), no packet marked previous_packet_dropped, no event left undecodable, and the
 *       agent's own {@code jtrace: lost track events} counter reads 0;
 *   <li>the child's stderr is empty (the agent prints nothing), and the heap the child retains after
 *       all its threads ended grows by less than half the trace buffer, whether 10,000 or 1,000,000
 *       threads came and went: nothing is kept per thread ever seen.
 * </ul>
 * Each test prints one {@code SCALE} line (child wall time, decode time, trace size, SMB, child heap)
 * and heads every failure with it.
 */
class ScaleTracesEveryThreadTest {
    /** A service that replaces its threads all the time, far more threads than SMB chunks or writer ids. */
    private static final int CHURN_THREADS = 100_000;
    private static final int CHURN_CONCURRENT = 200;
    private static final int CHURN_SLICES = 5;
    /** A thread-per-connection server: well over the owned-writer budget (8192), all alive at the same moment. */
    private static final int LIVE_THREADS = 10_000;
    private static final int LIVE_SLICES = 10;
    /** A virtual-thread-per-request service. */
    private static final int VIRTUAL_THREADS = 1_000_000;
    private static final int VIRTUAL_SLICES = 1;
    private static final String CHILD_HEAP = "-Xmx512m";
    /** 10,000 threads with the default 1 MB stacks would reserve 10 GB; the workload and the agent are shallow. */
    private static final String SMALL_STACKS = "-Xss256k";
    private static final Duration CHILD_TIMEOUT = Duration.ofMinutes(5);
    /**
     * What the child's heap may grow by between before its first workload thread and after its last:
     * the service's bookkeeping of the chunks its trace buffer holds, bounded by that buffer, not by the
     * threads seen (a leak of 17 bytes per virtual thread would exceed it): twice that buffer.
     */
    private static final long MAX_HEAP_GROWTH_BYTES = 2 * AgentOptions.DEFAULT_STREAMED_BUFFER_BYTES;
    private static final Set<String> REPORT_KEYS = Set.of("SLICES", "THREADS", "SMB_BYTES", "HEAP_BEFORE_KB",
            "HEAP_AFTER_KB", "HEAP_PEAK_KB", "CARRIER_MOVES");
    private static final List<String> WORKLOAD_CATEGORIES = List.of("scale");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aHundredThousandShortLivedThreadsLoseNoSliceAndEachSliceIsOnItsThreadsTrack(String jdk) throws Exception {
        Run run = run(jdk, Shape.CHURN, CHURN_THREADS, CHURN_SLICES, List.of(CHILD_HEAP),
                String.valueOf(CHURN_CONCURRENT));
        // Thread ids are recycled over 100,000 threads, so a track may carry the slices of several
        // threads that never lived at the same time: each must have been described on it.
        assertAll(run.line, run.platformChecks());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void tenThousandThreadsAliveAtOnceLoseNoSliceAndEachSliceIsOnItsThreadsOwnTrack(String jdk) throws Exception {
        Run run = run(jdk, Shape.LIVE, LIVE_THREADS, LIVE_SLICES, List.of(CHILD_HEAP, SMALL_STACKS));
        List<Executable> checks = run.platformChecks();
        // All alive at once: distinct OS threads, so distinct tracks.
        checks.add(() -> assertEquals(LIVE_THREADS, run.trace.distinctThreadTracks(),
                "threads alive together described on distinct tracks"));
        assertAll(run.line, checks);
    }

    @Test
    void aMillionVirtualThreadsLoseNoSliceAndEachSliceIsOnItsVirtualThreadsOwnTrack() throws Exception {
        Run run = run("jtrace.jdk25", Shape.VIRTUAL, VIRTUAL_THREADS, VIRTUAL_SLICES, List.of(CHILD_HEAP));
        List<Executable> checks = run.commonChecks();
        ScaleTrace t = run.trace;
        // Without slices that end on another carrier than they began on, the test would not show that a
        // slice follows its virtual thread rather than the carrier (or pooled sequence) it ran on.
        checks.add(() -> assertTrue(run.reported.getOrDefault("CARRIER_MOVES", 0L) > 0,
                "slices that began and ended on different carriers: the workload must produce some"));
        checks.add(none("tracks with slices that are not a virtual thread's (named '<name> #<id>', under the"
                + " process track, no thread descriptor)", t.tracksNotAVirtualThreadsOfTheProcess()));
        checks.add(() -> assertEquals(VIRTUAL_THREADS, t.tracksWithSlices(), "one track per virtual thread"));
        checks.add(none("tracks without exactly one of each of their thread's slices", t.tracksWithSlicesOtherThan(track -> 1)));
        checks.add(none("java thread ids in the names of two tracks", t.javaIdsOnTwoTracks()));
        checks.add(none("named virtual threads (vt-<i>) whose track is never described",
                t.threadsNeverDescribed(i -> i % 10 == 0)));
        checks.add(none("virtual threads described on two tracks", t.describedOnTwoTracks));
        assertAll(run.line, checks);
    }

    /** A workload mode: its argument, how its threads are named, and whether they are virtual. */
    private enum Shape {
        CHURN("churn", "churn-"),
        LIVE("live", "live-"),
        VIRTUAL("virtual", "vt-");

        final String mode;
        final String threadPrefix;

        Shape(String mode, String threadPrefix) {
            this.mode = mode;
            this.threadPrefix = threadPrefix;
        }

        boolean virtual() {
            return this == VIRTUAL;
        }
    }

    private Run run(String jdk, Shape shape, int threads, int perThread, List<String> jvmFlags, String... modeArgs)
            throws Exception {
        Path trace = dir.resolve(shape.mode + ".pftrace");
        List<String> args = new ArrayList<>();
        args.add(shape.mode);
        args.add(String.valueOf(threads));
        args.addAll(List.of(modeArgs));
        args.add(String.valueOf(perThread));
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk), "start,file=" + trace, trace, dir, jvmFlags,
                CHILD_TIMEOUT, ScaleWorkload.class.getName(), args.toArray(String[]::new));
        ScaleTrace scan = new ScaleTrace(shape, threads, perThread, result.pid());
        long decodeStart = System.nanoTime();
        TrackEventDecoder decoder = TrackEventDecoder.decode(trace, scan);
        Duration decodeTime = Duration.ofNanos(System.nanoTime() - decodeStart);
        Run run = new Run(jdk, shape, result, result.report(), decoder, scan, Files.size(trace), decodeTime);
        System.out.println(run.line);
        return run;
    }

    /** One child run and its decoded trace. */
    private static final class Run {
        final ChildJvm.Result result;
        final Map<String, Long> reported;
        final TrackEventDecoder decoder;
        final ScaleTrace trace;
        final LossSummary losses;
        final long expectedSlices;
        final String line;

        Run(String jdk, Shape shape, ChildJvm.Result result, Map<String, Long> reported, TrackEventDecoder decoder,
                ScaleTrace trace, long traceBytes, Duration decodeTime) {
            this.result = result;
            this.reported = reported;
            this.decoder = decoder;
            this.trace = trace;
            this.losses = decoder.losses();
            this.expectedSlices = (long) trace.threads * trace.perThread;
            this.line = String.format("SCALE %s %s x %d threads x %d slices: found %d of %d slices on %d tracks;"
                            + " child %.1f s, decode %.1f s, trace %.1f MB (%.0f bytes/slice), SMB %d KiB,"
                            + " child heap before %d MB, after %d MB, peak <= %d MB;%s"
                            + " packets %d, sequences %d; lost-events counter %s; %s",
                    shape.mode, jdk, trace.threads, trace.perThread, trace.slicesFound, expectedSlices,
                    trace.tracksWithSlices(), result.wallTime().toMillis() / 1000.0, decodeTime.toMillis() / 1000.0,
                    traceBytes / 1e6, traceBytes / (double) Math.max(1, trace.slicesFound),
                    reported.getOrDefault("SMB_BYTES", -1L) >> 10, reported.getOrDefault("HEAP_BEFORE_KB", -1L) >> 10,
                    reported.getOrDefault("HEAP_AFTER_KB", -1L) >> 10, reported.getOrDefault("HEAP_PEAK_KB", -1L) >> 10,
                    reported.containsKey("CARRIER_MOVES") ? " carrier moves " + reported.get("CARRIER_MOVES") + ";" : "",
                    decoder.packets(), decoder.sequences(),
                    trace.lostEventsCounter(), losses);
        }

        /** What every run must satisfy, whatever its threads. */
        List<Executable> commonChecks() {
            List<Executable> checks = new ArrayList<>();
            checks.add(() -> assertEquals("", result.stderr(), "the child's stderr (the agent must print nothing)"));
            checks.add(() -> assertTrue(REPORT_KEYS.containsAll(reported.keySet()),
                    () -> "the agent must not print to stdout; child stdout tail:\n" + ChildJvm.tail(result.stdout())));
            checks.add(() -> assertEquals(expectedSlices, reported.getOrDefault("SLICES", -1L), "slices the workload emitted"));
            checks.add(() -> assertEquals(AgentOptions.EMBEDDED_SMB_BYTES, reported.getOrDefault("SMB_BYTES", -1L),
                    "bytes of SMB mapped in the child: one SMB of the embedded service's size"));
            checks.add(() -> assertTrue(reported.getOrDefault("HEAP_AFTER_KB", Long.MAX_VALUE)
                            - reported.getOrDefault("HEAP_BEFORE_KB", 0L) < MAX_HEAP_GROWTH_BYTES >> 10,
                    "heap retained after every thread ended grows by less than " + (MAX_HEAP_GROWTH_BYTES >> 20) + " MB"));
            checks.add(() -> assertEquals(expectedSlices, trace.slicesFound, "complete workload slices in the trace"));
            checks.add(none("workload slices with a name it never used", trace.malformed));
            checks.add(() -> assertEquals(0, decoder.unendedSlices(), "slices begun and never ended"));
            checks.add(() -> assertEquals(0, decoder.unmatchedEnds(), "slice ends without a begin on their track"));
            checks.add(() -> assertEquals(0, decoder.eventsSkippedForLostState(),
                    "events undecodable because their sequence's interned state was lost"));
            checks.add(() -> assertEquals(0, decoder.problemCount(), () -> "decode problems: " + decoder.problems()));
            checks.add(() -> assertTrue(losses.isLossless(), () -> "the trace reports loss: " + losses));
            checks.add(() -> assertEquals(List.of(0.0), trace.lostEventsCounter(),
                    "samples of the agent's '" + TrackEventDataSource.LOST_EVENTS_TRACK + "' counter"));
            return checks;
        }

        /** Platform threads: each slice on a thread track of the child that was described for its thread. */
        List<Executable> platformChecks() {
            List<Executable> checks = commonChecks();
            checks.add(none("tracks with slices that are not a thread track of pid " + trace.pid + " with an OS tid",
                    trace.tracksNotAThreadOfTheChild()));
            checks.add(none("threads whose track is never described", trace.threadsNeverDescribed(i -> true)));
            checks.add(none("threads described on two tracks", trace.describedOnTwoTracks));
            checks.add(none("tracks without one of each slice per thread described on them",
                    trace.tracksWithSlicesOtherThan(trace::threadsDescribedOn)));
            return checks;
        }
    }

    /**
     * Counts what the decoder finds instead of storing it: per track, its descriptor's verdict and how
     * many of each workload slice it carries; per workload thread (by the index in its name), the track
     * it was described on. A million virtual threads are a million tracks, so nothing else is kept.
     */
    private static final class ScaleTrace implements TrackEventDecoder.Listener {
        private static final String UNNAMED_VIRTUAL = "virtual thread";

        /** What a track's descriptor said, and the workload slices on it. */
        private static final class TrackTally {
            /** Platform: a thread of the child with an OS tid. Virtual: a named track, not a thread's. */
            boolean describedAsExpected;
            long parent;
            long javaId = -1;
            final int[] slices;
            long total;

            TrackTally(int perThread) {
                slices = new int[perThread];
            }
        }

        final Shape shape;
        final int threads;
        final int perThread;
        final long pid;
        /** The track each workload thread was described on, 0 while it was not. */
        final long[] trackOfThread;
        final Map<Long, TrackTally> tracks = new HashMap<>();
        final List<Long> counterTracksNamedLostEvents = new ArrayList<>();
        final List<long[]> counterSamples = new ArrayList<>();
        long processTrack;
        final Findings describedOnTwoTracks = new Findings();
        final Findings malformed = new Findings();
        long slicesFound;
        private Map<Long, Integer> threadsPerTrack;

        ScaleTrace(Shape shape, int threads, int perThread, long pid) {
            this.shape = shape;
            this.threads = threads;
            this.perThread = perThread;
            this.pid = pid;
            this.trackOfThread = new long[threads];
        }

        @Override
        public void track(TrackDescriptor d) {
            if (d.hasProcess()) {
                if (d.getProcess().getPid() == pid) {
                    processTrack = d.getUuid();
                }
            } else if (d.hasCounter()) {
                if (TrackEventDataSource.LOST_EVENTS_TRACK.equals(d.getName())
                        && !counterTracksNamedLostEvents.contains(d.getUuid())) {
                    counterTracksNamedLostEvents.add(d.getUuid());
                }
            } else if (d.hasThread()) {
                ThreadDescriptor t = d.getThread();
                int index = indexAfter(t.getThreadName(), shape.threadPrefix);
                if (!shape.virtual() && index >= 0 && index < threads) {
                    TrackTally tally = tally(d.getUuid());
                    tally.describedAsExpected = t.getPid() == pid && t.getTid() > 0;
                    described(index, d.getUuid());
                }
            } else if (shape.virtual() && d.hasName()) {
                virtualThreadTrack(d);
            }
        }

        /** A track named {@code <thread name or "virtual thread"> #<java id>}: a virtual thread's. */
        private void virtualThreadTrack(TrackDescriptor d) {
            String name = d.getName();
            int hash = name.lastIndexOf(" #");
            if (hash < 0) {
                return;
            }
            String threadName = name.substring(0, hash);
            int index = indexAfter(threadName, shape.threadPrefix);
            if (!threadName.equals(UNNAMED_VIRTUAL) && (index < 0 || index >= threads)) {
                return;
            }
            long javaId;
            try {
                javaId = Long.parseLong(name, hash + 2, name.length(), 10);
            } catch (NumberFormatException e) {
                return;
            }
            TrackTally tally = tally(d.getUuid());
            tally.describedAsExpected = true;
            tally.parent = d.getParentUuid();
            tally.javaId = javaId;
            if (index >= 0) {
                described(index, d.getUuid());
            }
        }

        private void described(int index, long track) {
            if (trackOfThread[index] == 0) {
                trackOfThread[index] = track;
            } else if (trackOfThread[index] != track) {
                describedOnTwoTracks.add("thread " + shape.threadPrefix + index + " described on tracks " + trackOfThread[index]
                        + " and " + track);
            }
        }

        @Override
        public void slice(long track, String name, List<String> categories, long begin, long end) {
            if (!WORKLOAD_CATEGORIES.equals(categories)) {
                return;
            }
            int j = indexAfter(name, "work-");
            if (j < 0 || j >= perThread) {
                malformed.add("slice '" + name + "' on track " + track);
                return;
            }
            TrackTally tally = tally(track);
            tally.slices[j]++;
            tally.total++;
            slicesFound++;
        }

        @Override
        public void counter(long track, double value, long timestamp) {
            counterSamples.add(new long[] {track, Double.doubleToLongBits(value)});
        }

        private TrackTally tally(long track) {
            return tracks.computeIfAbsent(track, k -> new TrackTally(perThread));
        }

        /** The values of the agent's lost-events counter, in trace order. */
        List<Double> lostEventsCounter() {
            List<Double> values = new ArrayList<>();
            for (long[] sample : counterSamples) {
                if (counterTracksNamedLostEvents.contains(sample[0])) {
                    values.add(Double.longBitsToDouble(sample[1]));
                }
            }
            return values;
        }

        long tracksWithSlices() {
            return tracks.values().stream().filter(t -> t.total > 0).count();
        }

        long distinctThreadTracks() {
            return Arrays.stream(trackOfThread).filter(t -> t != 0).distinct().count();
        }

        int threadsDescribedOn(long track) {
            if (threadsPerTrack == null) {
                threadsPerTrack = new HashMap<>();
                for (long t : trackOfThread) {
                    if (t != 0) {
                        threadsPerTrack.merge(t, 1, Integer::sum);
                    }
                }
            }
            return threadsPerTrack.getOrDefault(track, 0);
        }

        Findings threadsNeverDescribed(IntPredicate mustBeDescribed) {
            Findings missing = new Findings();
            for (int i = 0; i < threads; i++) {
                if (mustBeDescribed.test(i) && trackOfThread[i] == 0) {
                    missing.add("no track described for thread " + shape.threadPrefix + i);
                }
            }
            return missing;
        }

        /** Tracks with workload slices whose descriptor is not a thread track of the child with an OS tid. */
        Findings tracksNotAThreadOfTheChild() {
            Findings bad = new Findings();
            for (Map.Entry<Long, TrackTally> e : tracks.entrySet()) {
                if (e.getValue().total > 0 && !e.getValue().describedAsExpected) {
                    bad.add("track " + e.getKey() + " carries " + e.getValue().total + " slices, not described as a"
                            + " workload thread of pid " + pid);
                }
            }
            return bad;
        }

        /** Tracks with workload slices that are not a virtual thread's named track under the process track. */
        Findings tracksNotAVirtualThreadsOfTheProcess() {
            Findings bad = new Findings();
            for (Map.Entry<Long, TrackTally> e : tracks.entrySet()) {
                TrackTally t = e.getValue();
                if (t.total > 0 && !(t.describedAsExpected && processTrack != 0 && t.parent == processTrack)) {
                    bad.add("track " + e.getKey() + " carries " + t.total + " slices; described as a virtual thread's: "
                            + t.describedAsExpected + ", parent " + t.parent + " (process track " + processTrack + ")");
                }
            }
            return bad;
        }

        /** Tracks on which some workload slice {@code work-j} does not appear exactly {@code expected(track)} times. */
        Findings tracksWithSlicesOtherThan(LongToIntFunction expected) {
            Findings bad = new Findings();
            for (Map.Entry<Long, TrackTally> e : tracks.entrySet()) {
                TrackTally t = e.getValue();
                if (t.total == 0) {
                    continue;
                }
                int want = expected.applyAsInt(e.getKey());
                if (Arrays.stream(t.slices).anyMatch(count -> count != want)) {
                    bad.add("track " + e.getKey() + " has work-0.. counts " + Arrays.toString(t.slices)
                            + ", expected " + want + " of each");
                }
            }
            return bad;
        }

        /** Java thread ids that appear in the names of two tracks carrying slices. */
        Findings javaIdsOnTwoTracks() {
            long[] ids = tracks.values().stream().filter(t -> t.total > 0 && t.javaId >= 0)
                    .mapToLong(t -> t.javaId).sorted().toArray();
            Findings repeats = new Findings();
            for (int k = 1; k < ids.length; k++) {
                if (ids[k] == ids[k - 1]) {
                    repeats.add("java thread id " + ids[k] + " names two tracks");
                }
            }
            return repeats;
        }

        /** The decimal number right after {@code prefix} that ends {@code s}, or -1. */
        private static int indexAfter(String s, String prefix) {
            if (!s.startsWith(prefix) || s.length() == prefix.length() || s.length() - prefix.length() > 9) {
                return -1;
            }
            int n = 0;
            for (int k = prefix.length(); k < s.length(); k++) {
                char c = s.charAt(k);
                if (c < '0' || c > '9') {
                    return -1;
                }
                n = n * 10 + (c - '0');
            }
            return n;
        }
    }

    /** How many of something a check found, and the first few of them for its message. */
    private static final class Findings {
        private static final int EXAMPLES = 5;
        long count;
        final List<String> examples = new ArrayList<>();

        void add(String example) {
            count++;
            if (examples.size() < EXAMPLES) {
                examples.add(example);
            }
        }
    }

    /** A check that {@code findings} found nothing; its message names what and shows the first few. */
    private static Executable none(String what, Findings findings) {
        return () -> assertEquals(0, findings.count, () -> what + ", e.g. " + findings.examples);
    }
}
