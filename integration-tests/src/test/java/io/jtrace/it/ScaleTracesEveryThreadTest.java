package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.LossSummary;
import io.jtrace.it.trace.TrackEventDecoder;
import io.jtrace.it.workload.ScaleWorkload;
import io.jtrace.protos.TrackDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The product's promise at the size of real services: every event of every thread is in the trace, or
 * its loss is counted. A child JVM with the default agent options ({@code start,file=...}) runs
 * {@link ScaleWorkload}; the trace is streamed (it can be hundreds of MB) and checked with exact
 * counts: each expected slice exactly once and ended, on the track of the thread that emitted it, and
 * nothing lost by the service's own account. Each test prints one {@code SCALE ...} line (wall time,
 * trace size, bytes per slice, child heap, losses) and puts it in every failure message.
 */
class ScaleTracesEveryThreadTest {
    /** A service that replaces its threads all the time: far more threads than any id space of ~255 writers. */
    private static final int CHURN_THREADS = 100_000;
    private static final int CHURN_WAVE = 50;
    private static final int CHURN_SLICES = 5;
    /** A thread-per-connection server: this many threads hold a writer at the same moment. */
    private static final int LIVE_THREADS = 10_000;
    private static final int LIVE_SLICES = 10;
    /** A virtual-thread-per-request service. */
    private static final int VIRTUAL_THREADS = 1_000_000;
    private static final int VIRTUAL_SLICES = 1;
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(200);
    private static final Set<String> REPORT_KEYS =
            Set.of("SLICES", "THREADS", "HEAP_USED_MB", "HEAP_PEAK_MB", "CARRIER_MOVES");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void everySliceOfAHundredThousandShortLivedThreadsIsTracedOnceOnItsOwnThreadTrack(String jdk) throws Exception {
        Run run = run(jdk, List.of("-Xmx256m"), "s-", CHURN_THREADS, CHURN_SLICES,
                "churn", String.valueOf(CHURN_THREADS), String.valueOf(CHURN_WAVE), String.valueOf(CHURN_SLICES));
        List<Executable> checks = run.commonChecks();
        checks.add(() -> assertEquals(0, run.scan.slicesNotOnAThreadTrackOfTheChild(run.pid),
                () -> "slices not on a thread track of pid " + run.pid + ": " + run.scan.examples + run.line));
        // Threads of one wave are alive together (each waits for its whole wave before ending), so
        // the OS gives them distinct tids and each must have its own track. Across waves tids are
        // recycled (pid_max is often 32768), so a track may be shared by threads that never coexisted.
        checks.add(() -> assertEquals(0, run.scan.coexistingIndicesSharingATrack(CHURN_WAVE),
                () -> "threads alive at the same time share a track" + run.line));
        assertAll(run.line, checks);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void everySliceOfTenThousandThreadsAliveAtOnceIsTracedOnceOnItsOwnThreadTrack(String jdk) throws Exception {
        // Small stacks: 10,000 threads with the default 1 MB would be 10 GB of address space; the
        // workload and the agent's write path are shallow.
        Run run = run(jdk, List.of("-Xmx256m", "-Xss256k"), "s-", LIVE_THREADS, LIVE_SLICES,
                "live", String.valueOf(LIVE_THREADS), String.valueOf(LIVE_SLICES));
        List<Executable> checks = run.commonChecks();
        checks.add(() -> assertEquals(0, run.scan.slicesNotOnAThreadTrackOfTheChild(run.pid),
                () -> "slices not on a thread track of pid " + run.pid + ": " + run.scan.examples + run.line));
        // All N are alive at once: N distinct tracks, and each descriptor names the thread that wrote it.
        checks.add(() -> assertEquals(0, run.scan.coexistingIndicesSharingATrack(LIVE_THREADS),
                () -> "threads alive at the same time share a track" + run.line));
        checks.add(() -> assertEquals(0, run.scan.tracksNotNamed(i -> "live-" + i, false),
                () -> "thread tracks not named after their thread: " + run.scan.examples + run.line));
        assertAll(run.line, checks);
    }

    @Test
    void everySliceOfAMillionVirtualThreadsIsTracedOnceOnItsVirtualThreadsOwnTrack() throws Exception {
        Run run = run("jtrace.jdk25", List.of("-Xmx512m"), "v-", VIRTUAL_THREADS, VIRTUAL_SLICES,
                "virtual", String.valueOf(VIRTUAL_THREADS), String.valueOf(VIRTUAL_SLICES));
        List<Executable> checks = run.commonChecks();
        // Without carrier moves the test would not show that a slice follows its virtual thread.
        checks.add(() -> assertTrue(run.reported.getOrDefault("CARRIER_MOVES", 0L) > 0,
                "no slice began and ended on different carriers; the workload did not exercise moves" + run.line));
        // The design: one track per virtual thread, a child of the process track, named
        // "virtual thread #<id>" or "<name> #<id>", with no thread descriptor (a virtual thread has no
        // tid; its carrier's tid would put several virtual threads on one OS thread's track).
        checks.add(() -> assertEquals(0, run.scan.slicesNotOnAVirtualThreadTrackOfTheProcess(run.pid),
                () -> "slices not on a virtual thread track under the process: " + run.scan.examples + run.line));
        checks.add(() -> assertEquals(0, run.scan.coexistingIndicesSharingATrack(VIRTUAL_THREADS),
                () -> "virtual threads share a track" + run.line));
        checks.add(() -> assertEquals(0, run.scan.tracksNotNamed(
                        i -> i % 1000 == 0 ? "vt-" + i + " #" : "virtual thread #", true),
                () -> "virtual thread tracks misnamed: " + run.scan.examples + run.line));
        checks.add(() -> assertEquals(0, run.scan.javaThreadIdsUsedTwice(),
                () -> "two virtual threads' tracks carry the same java thread id" + run.line));
        assertAll(run.line, checks);
    }

    /** One child run and its decoded trace. */
    private final class Run {
        final long pid;
        final ChildJvm.Result result;
        final Map<String, Long> reported;
        final TrackEventDecoder decoder;
        final SliceScan scan;
        final LossSummary losses;
        final String line;

        Run(ChildJvm.Result result, Map<String, Long> reported, TrackEventDecoder decoder, SliceScan scan,
                long traceBytes) {
            this.pid = result.pid();
            this.result = result;
            this.reported = reported;
            this.decoder = decoder;
            this.scan = scan;
            this.losses = decoder.losses();
            long expected = (long) scan.threads * scan.perThread;
            this.line = String.format(
                    "%nSCALE %s: slices found %d of %d (missing %d, duplicates %d), wall %.1f s, trace %.1f MB,"
                            + " %.1f bytes/slice, child heap used %s MB (peak %s MB), packets %d, sequences %d,"
                            + " tracks used %d, unended %d, unmatched ends %d, skipped for lost state %d,"
                            + " decode problems %d %s, %s",
                    scan.prefix + "x" + scan.threads, scan.found(), expected, expected - scan.found(), scan.duplicates,
                    result.wallTime().toMillis() / 1000.0, traceBytes / 1e6,
                    scan.found() == 0 ? Double.NaN : traceBytes / (double) scan.found(),
                    reported.get("HEAP_USED_MB"), reported.get("HEAP_PEAK_MB"), decoder.packets(), decoder.sequences(),
                    scan.distinctTracksUsed(), decoder.unendedSlices(), decoder.unmatchedEnds(),
                    decoder.eventsSkippedForLostState(), decoder.problemCount(),
                    decoder.problems().subList(0, Math.min(3, decoder.problems().size())), losses);
        }

        /** What every scale run must satisfy, whatever the thread shape. */
        List<Executable> commonChecks() {
            long expected = (long) scan.threads * scan.perThread;
            List<Executable> checks = new ArrayList<>();
            checks.add(() -> assertEquals(0, result.exitCode(), () -> "child failed: " + result.stderr() + line));
            checks.add(() -> assertEquals("", result.stderr(), () -> "child stderr" + line));
            checks.add(() -> assertEquals(expected, reported.getOrDefault("SLICES", -1L), "workload report" + line));
            checks.add(() -> assertTrue(REPORT_KEYS.containsAll(reported.keySet()),
                    () -> "the agent must not print to stdout; child stdout was: " + result.stdout() + line));
            checks.add(() -> assertEquals(expected, scan.found(), () -> "distinct expected slices in the trace"
                    + (scan.firstMissing() >= 0 ? ", first missing " + scan.name(scan.firstMissing()) : "") + line));
            checks.add(() -> assertEquals(0, scan.duplicates, "slices found more than once" + line));
            checks.add(() -> assertEquals(0, scan.malformed, () -> "slices with the prefix but no valid index: "
                    + scan.examples + line));
            checks.add(() -> assertEquals(0, decoder.unendedSlices(), "slices begun and never ended" + line));
            checks.add(() -> assertEquals(0, decoder.unmatchedEnds(), "ends without a begin on their track" + line));
            checks.add(() -> assertEquals(0, decoder.problemCount(), () -> "decode problems: " + decoder.problems() + line));
            checks.add(() -> assertEquals(0, scan.indicesSplitAcrossTracks, "a thread's slices on several tracks" + line));
            checks.add(() -> assertTrue(losses.isLossless(), () -> "trace reports loss: " + losses + line));
            return checks;
        }
    }

    private Run run(String jdk, List<String> jvmFlags, String prefix, int threads, int perThread, String... args)
            throws Exception {
        Path trace = dir.resolve("scale.pftrace");
        ChildJvm.Result result = ChildJvm.run(ChildJvm.java(jdk), "start,file=" + trace, dir, jvmFlags, CHILD_TIMEOUT,
                ScaleWorkload.class.getName(), args);
        Map<String, Long> reported = parseReport(result.stdout());
        SliceScan scan = new SliceScan(prefix, threads, perThread);
        long traceBytes = Files.exists(trace) ? Files.size(trace) : 0;
        TrackEventDecoder decoder = traceBytes == 0 ? new TrackEventDecoder(scan) : TrackEventDecoder.decode(trace, scan);
        decoder.finish();
        Run run = new Run(result, reported, decoder, scan, traceBytes);
        System.out.println(run.line.trim() + " [" + jdk + "]");
        return run;
    }

    /**
     * Counts instead of storing: a BitSet of (thread index, slice index) seen, the track of each thread
     * index, and a compact summary of every track descriptor (a million virtual threads are a million
     * descriptors).
     */
    private static final class SliceScan implements TrackEventDecoder.Listener {
        record TrackInfo(boolean thread, int pid, long tid, String name, long parent, boolean process) {}

        final String prefix;
        final int threads;
        final int perThread;
        final BitSet seen;
        final long[] trackOf;
        final Map<Long, TrackInfo> tracks = new HashMap<>();
        final List<String> examples = new ArrayList<>();
        long duplicates;
        long malformed;
        long indicesSplitAcrossTracks;

        SliceScan(String prefix, int threads, int perThread) {
            this.prefix = prefix;
            this.threads = threads;
            this.perThread = perThread;
            this.seen = new BitSet(threads * perThread);
            this.trackOf = new long[threads];
        }

        @Override
        public void track(TrackDescriptor d) {
            // Last descriptor wins, as for a recycled tid whose track is described again by its new thread.
            TrackInfo info;
            if (d.hasProcess()) {
                info = new TrackInfo(false, d.getProcess().getPid(), 0, d.getName(), d.getParentUuid(), true);
            } else if (d.hasThread()) {
                info = new TrackInfo(true, d.getThread().getPid(), d.getThread().getTid(),
                        d.getThread().getThreadName(), d.getParentUuid(), false);
            } else {
                info = new TrackInfo(false, 0, 0, d.hasName() ? d.getName() : null, d.getParentUuid(), false);
            }
            tracks.put(d.getUuid(), info);
        }

        @Override
        public void slice(long track, String name, List<String> categories, long begin, long end) {
            if (name == null || !name.startsWith(prefix)) {
                return;
            }
            // "<prefix><i>-<j>", parsed by hand: millions of slices, no regex.
            int dash = name.indexOf('-', prefix.length());
            int i;
            int j;
            try {
                i = Integer.parseInt(name, prefix.length(), dash, 10);
                j = Integer.parseInt(name, dash + 1, name.length(), 10);
            } catch (RuntimeException e) {
                i = -1;
                j = -1;
            }
            if (i < 0 || i >= threads || j < 0 || j >= perThread) {
                malformed++;
                example("malformed slice name " + name);
                return;
            }
            int bit = i * perThread + j;
            if (seen.get(bit)) {
                duplicates++;
                example("duplicate " + name);
                return;
            }
            seen.set(bit);
            if (trackOf[i] == 0) {
                trackOf[i] = track;
            } else if (trackOf[i] != track) {
                indicesSplitAcrossTracks++;
                example(name + " on track " + track + " but earlier slices of thread " + i + " on " + trackOf[i]);
            }
        }

        int found() {
            return seen.cardinality();
        }

        int firstMissing() {
            int bit = seen.nextClearBit(0);
            return bit < threads * perThread ? bit : -1;
        }

        String name(int bit) {
            return prefix + bit / perThread + "-" + bit % perThread;
        }

        long distinctTracksUsed() {
            long[] sorted = Arrays.stream(trackOf).filter(t -> t != 0).sorted().toArray();
            long n = sorted.length == 0 ? 0 : 1;
            for (int k = 1; k < sorted.length; k++) {
                if (sorted[k] != sorted[k - 1]) {
                    n++;
                }
            }
            return n;
        }

        /**
         * Thread indices in the same group of {@code groupSize} (the threads alive at the same time) whose
         * slices share a track; 0 when every group's tracks are distinct.
         */
        long coexistingIndicesSharingATrack(int groupSize) {
            long shared = 0;
            for (int first = 0; first < threads; first += groupSize) {
                long[] group = Arrays.stream(trackOf, first, Math.min(threads, first + groupSize))
                        .filter(t -> t != 0).sorted().toArray();
                for (int k = 1; k < group.length; k++) {
                    if (group[k] == group[k - 1]) {
                        shared++;
                    }
                }
            }
            return shared;
        }

        /** Slices whose track has no descriptor with a thread of {@code pid} and a real tid. */
        long slicesNotOnAThreadTrackOfTheChild(long pid) {
            long bad = 0;
            for (int i = 0; i < threads; i++) {
                if (trackOf[i] == 0) {
                    continue;
                }
                TrackInfo t = tracks.get(trackOf[i]);
                if (t == null || !t.thread() || t.pid() != pid || t.tid() <= 0) {
                    bad++;
                    example("thread " + i + " on track " + trackOf[i] + " described as " + t);
                }
            }
            return bad;
        }

        /**
         * Slices whose track is not a virtual thread's: a named track under the process track of
         * {@code pid}, without a thread descriptor.
         */
        long slicesNotOnAVirtualThreadTrackOfTheProcess(long pid) {
            long processUuid = 0;
            for (Map.Entry<Long, TrackInfo> e : tracks.entrySet()) {
                if (e.getValue().process() && e.getValue().pid() == pid) {
                    processUuid = e.getKey();
                }
            }
            long bad = 0;
            for (int i = 0; i < threads; i++) {
                if (trackOf[i] == 0) {
                    continue;
                }
                TrackInfo t = tracks.get(trackOf[i]);
                if (t == null || t.thread() || t.process() || processUuid == 0 || t.parent() != processUuid) {
                    bad++;
                    example("virtual thread " + i + " on track " + trackOf[i] + " described as " + t
                            + " (process track " + processUuid + ")");
                }
            }
            return bad;
        }

        /**
         * Thread indices whose track's name is not {@code expectedName(i)}; with {@code idSuffix} the name
         * must be that prefix followed by a decimal java thread id.
         */
        long tracksNotNamed(IntFunction<String> expectedName, boolean idSuffix) {
            long bad = 0;
            for (int i = 0; i < threads; i++) {
                if (trackOf[i] == 0) {
                    continue;
                }
                TrackInfo t = tracks.get(trackOf[i]);
                String expected = expectedName.apply(i);
                boolean ok = t != null && t.name() != null && (idSuffix
                        ? t.name().startsWith(expected) && javaThreadId(t.name(), expected.length()) >= 0
                        : t.name().equals(expected));
                if (!ok) {
                    bad++;
                    example("thread " + i + ": track named " + (t == null ? null : "'" + t.name() + "'")
                            + ", expected " + expected + (idSuffix ? "<id>" : ""));
                }
            }
            return bad;
        }

        /** Virtual thread tracks whose "#<id>" repeats another's: two virtual threads folded together. */
        long javaThreadIdsUsedTwice() {
            long[] ids = new long[threads];
            int n = 0;
            for (int i = 0; i < threads; i++) {
                TrackInfo t = trackOf[i] == 0 ? null : tracks.get(trackOf[i]);
                if (t != null && t.name() != null) {
                    int hash = t.name().lastIndexOf(" #");
                    long id = hash < 0 ? -1 : javaThreadId(t.name(), hash + 2);
                    if (id >= 0) {
                        ids[n++] = id;
                    }
                }
            }
            Arrays.sort(ids, 0, n);
            long repeats = 0;
            for (int k = 1; k < n; k++) {
                if (ids[k] == ids[k - 1]) {
                    repeats++;
                }
            }
            return repeats;
        }

        private static long javaThreadId(String name, int from) {
            if (from >= name.length()) {
                return -1;
            }
            try {
                return Long.parseLong(name, from, name.length(), 10);
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        private void example(String text) {
            if (examples.size() < 5) {
                examples.add(text);
            }
        }
    }

    private static Map<String, Long> parseReport(String stdout) {
        Map<String, Long> values = new HashMap<>();
        for (String line : stdout.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                values.put(line, -1L);
            } else {
                try {
                    values.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
                } catch (NumberFormatException e) {
                    values.put(line, -1L);
                }
            }
        }
        return values;
    }
}
