package io.jtrace.agent.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.trackevent.RecordingContext;
import io.jtrace.agent.tracks.DecodedSequences;
import io.jtrace.agent.tracks.PlatformMBeans;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.agent.tracks.Sampler;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jvm.threads' sampler as {@link ThreadsDataSource} makes it, driven sample by sample with chosen
 * timestamps (so when a dump may run is the test's choice: the sampler waits a time proportional to
 * the live threads between dumps, and the samples here come nanoseconds apart until the test jumps
 * the clock), decoded from what it wrote. Every placement is checked against the OS id the thread
 * read itself from {@code /proc/thread-self}.
 */
class ThreadsDataSourceTest {
    /** Far past any wait between dumps: the sample at this offset may take a dump. */
    private static final long DUMP_ALLOWED = 1_000_000_000_000L;

    @TempDir
    Path dir;

    private RecordingContext context;
    private ProcessTrack process;
    private PolledSequence sequence;
    private Sampler sampler;
    private final List<Subject> subjects = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        awaitPlatformMBeanServer();
        context = new RecordingContext(dir, 4 << 20);
        process = new ProcessTrack(1, "test", 5);
        sequence = new PolledSequence(process, context);
        sequence.open();
        sampler = new ThreadsDataSource(process, null).sampler(sequence, DataSourceConfig.getDefaultInstance());
    }

    @AfterEach
    void close() throws Exception {
        for (Subject s : subjects) {
            s.end();
        }
        context.close();
    }

    @Test
    void threadsAtTheStartAreDumpedAUniqueNewNameIsPlacedByNameAndTwinsWaitForTheNextDump() throws Exception {
        Subject early = subject("tst-early");
        early.awaitOlderThanADumpCanTell();
        long t0 = firstSample();
        Subject solo = subject("tst-solo");
        Subject twinA = subject("tst-twin");
        Subject twinB = subject("tst-twin");
        sample(t0 + 1_000);
        sample(t0 + 2_000);
        sample(t0 + 3_000);
        sample(t0 + DUMP_ALLOWED);
        DecodedSequences trace = lastSampleAndDecode(t0 + DUMP_ALLOWED + 1_000);

        assertEquals(List.of(), trace.undecodable());
        // Running at the start: placed by the first sample's dump, announced at the session's start.
        assertEquals(List.of("tst-early"), threadNames(trace, early));
        TrackEvent announced = instants(trace, early).get(0).event();
        assertEquals("thread", announced.getName());
        assertEquals(t0, instants(trace, early).get(0).timestamp());
        assertEquals(early.thread.getId(), annotation(announced, "java_thread_id").getIntValue());
        assertEquals(t0, firstCpuSample(trace, early), "sampled from the first sample on");

        // Started later with a name no other OS thread has: placed at the second sample that saw it
        // (the first only notes a new OS thread), long before a dump could run; it started when first seen.
        assertEquals(List.of("tst-solo"), threadNames(trace, solo));
        assertEquals(t0 + 2_000, firstCpuSample(trace, solo));
        assertEquals("thread start", instants(trace, solo).get(0).event().getName());
        assertEquals(t0 + 1_000, instants(trace, solo).get(0).timestamp());

        // Two new threads of one name: no name can tell them apart; the first dump allowed places both.
        for (Subject twin : List.of(twinA, twinB)) {
            assertEquals(List.of("tst-twin"), threadNames(trace, twin));
            assertEquals(t0 + DUMP_ALLOWED, firstCpuSample(trace, twin), "placed only when a dump may run");
            // Followed while unplaced: the stretch it was in when placed begins where it began.
            assertEquals(List.of(new Stretch("WAITING", t0 + 1_000, t0 + DUMP_ALLOWED + 1_000)), stretches(trace, twin));
        }
        assertTrue(twinA.tid != twinB.tid);
        assertStretchesWhole(trace);
    }

    @Test
    void aRenameAStateChangeAndAThreadsEndAreWrittenWithWholeStretches() throws Exception {
        Subject worker = subject("tst-worker");
        Subject idle = subject("tst-idle");
        worker.awaitOlderThanADumpCanTell();
        idle.awaitOlderThanADumpCanTell();
        long t0 = firstSample();
        worker.thread.setName("tst-worker-renamed");
        sample(t0 + 1_000);
        worker.toTimedWait.countDown();
        worker.awaitState(Thread.State.TIMED_WAITING);
        sample(t0 + 2_000);
        worker.end();
        sample(t0 + 3_000);
        sample(t0 + 4_000);
        DecodedSequences trace = lastSampleAndDecode(t0 + 5_000);

        assertEquals(List.of(), trace.undecodable());
        assertEquals(List.of("tst-worker", "tst-worker-renamed"), threadNames(trace, worker),
                "described again under its new name");
        List<DecodedSequences.Event> instants = instants(trace, worker);
        assertEquals(List.of("thread", "renamed", "thread end"), instants.stream().map(e -> e.event().getName()).toList());
        assertEquals(List.of(t0, t0 + 1_000, t0 + 3_000), instants.stream().map(DecodedSequences.Event::timestamp).toList());
        TrackEvent renamed = instants.get(1).event();
        assertEquals("tst-worker", annotation(renamed, "from").getStringValue());
        assertEquals("tst-worker-renamed", annotation(renamed, "to").getStringValue());
        assertEquals(List.of(new Stretch("WAITING", t0, t0 + 2_000), new Stretch("TIMED_WAITING", t0 + 2_000, t0 + 3_000)),
                stretches(trace, worker), "each stretch ends where the next begins; the last where the thread ended");

        assertEquals(List.of(new Stretch("WAITING", t0, t0 + 5_000)), stretches(trace, idle),
                "a stretch still open at the end closes with the session");
        assertEquals(List.of("thread"), instants(trace, idle).stream().map(e -> e.event().getName()).toList());
        assertStretchesWhole(trace);
    }

    /**
     * A thread that ends in the first sample after an incremental-state clear has its end written in the
     * new epoch, before any sample there described it: its tracks are described again first, or a ring
     * that overwrote the earlier descriptors would hold its last events on a track the trace never names.
     */
    @Test
    void aThreadThatEndsRightAfterAClearIsDescribedAgainBeforeItsLastEvents() throws Exception {
        Subject ending = subject("tst-ending");
        ending.awaitOlderThanADumpCanTell();
        long t0 = firstSample();
        sample(t0 + 1_000);
        sequence.clearIncrementalState();
        ending.end();
        sample(t0 + 2_000);
        DecodedSequences trace = lastSampleAndDecode(t0 + 3_000);

        assertEquals(List.of(), trace.undecodable(), "every event follows its track's descriptor in its epoch");
        assertEquals(2, trace.descriptors(process.threadUuid(ending.tid)).size(),
                "described at the first sample, and again after the clear");
        assertEquals(List.of("thread", "thread end"), instants(trace, ending).stream().map(e -> e.event().getName()).toList());
        assertEquals(List.of(new Stretch("WAITING", t0, t0 + 2_000)), stretches(trace, ending));
        assertStretchesWhole(trace);
    }

    private Subject subject(String name) throws InterruptedException {
        Subject s = new Subject(name);
        subjects.add(s);
        return s;
    }

    /** The session's first sample, taken now; returns its time. */
    private long firstSample() {
        long t0 = System.nanoTime();
        sequence.beginSample();
        sampler.first(t0);
        return t0;
    }

    /** The session's last sample, at {@code now}, and what the sequence holds then. */
    private DecodedSequences lastSampleAndDecode(long now) throws Exception {
        sequence.beginSample();
        sampler.last(now);
        return decode();
    }

    private void sample(long now) {
        sequence.beginSample();
        sampler.sample(now);
    }

    private DecodedSequences decode() throws Exception {
        sequence.close();
        return new DecodedSequences(context.read());
    }

    /** The names the thread's track was described with, in order; fails if it has no track. */
    private List<String> threadNames(DecodedSequences trace, Subject s) {
        List<TrackDescriptor> ds = trace.descriptors(process.threadUuid(s.tid));
        assertFalse(ds.isEmpty(), s.name + " has no track at its OS id " + s.tid);
        List<String> names = new ArrayList<>();
        for (TrackDescriptor d : ds) {
            assertEquals(s.tid, d.getThread().getTid());
            if (names.isEmpty() || !names.get(names.size() - 1).equals(d.getThread().getThreadName())) {
                names.add(d.getThread().getThreadName());
            }
        }
        return names;
    }

    private List<DecodedSequences.Event> instants(DecodedSequences trace, Subject s) {
        return trace.events(stateTrack(trace, s)).stream()
                .filter(e -> e.event().getType() == TrackEvent.Type.TYPE_INSTANT).toList();
    }

    private long stateTrack(DecodedSequences trace, Subject s) {
        return trace.track(process.threadUuid(s.tid), ThreadsDataSource.STATE_TRACK);
    }

    private long firstCpuSample(DecodedSequences trace, Subject s) {
        List<DecodedSequences.Event> cpu = trace.events(trace.track(process.threadUuid(s.tid), ThreadsDataSource.CPU_TRACK));
        assertFalse(cpu.isEmpty(), s.name + " has no CPU time");
        return cpu.get(0).timestamp();
    }

    record Stretch(String state, long begin, long end) {}

    private List<Stretch> stretches(DecodedSequences trace, Subject s) {
        List<Stretch> stretches = new ArrayList<>();
        DecodedSequences.Event begin = null;
        for (DecodedSequences.Event e : trace.events(stateTrack(trace, s))) {
            if (e.event().getType() == TrackEvent.Type.TYPE_SLICE_BEGIN) {
                begin = e;
            } else if (e.event().getType() == TrackEvent.Type.TYPE_SLICE_END) {
                stretches.add(new Stretch(begin.event().getName(), begin.timestamp(), e.timestamp()));
            }
        }
        return stretches;
    }

    /** On every thread's state track in the trace, each stretch's begin is followed at once by its end. */
    private static void assertStretchesWhole(DecodedSequences trace) {
        // The state tracks are the only slice tracks jvm.threads writes.
        List<String> broken = new ArrayList<>();
        for (long track : trace.tracksNamed(ThreadsDataSource.STATE_TRACK)) {
            DecodedSequences.Event open = null;
            for (DecodedSequences.Event e : trace.events(track)) {
                TrackEvent.Type type = e.event().getType();
                if (type == TrackEvent.Type.TYPE_SLICE_BEGIN) {
                    if (open != null || e.event().getName().isEmpty()) {
                        broken.add(track + ": " + e);
                    }
                    open = e;
                } else if (type == TrackEvent.Type.TYPE_SLICE_END) {
                    if (open == null || e.timestamp() < open.timestamp()) {
                        broken.add(track + ": " + e);
                    }
                    open = null;
                } else if (open != null) {
                    broken.add(track + ": an event inside a stretch: " + e);
                }
            }
            if (open != null) {
                broken.add(track + ": never closed: " + open);
            }
        }
        assertEquals(List.of(), broken);
    }

    private static DebugAnnotation annotation(TrackEvent e, String name) {
        return e.getDebugAnnotationsList().stream().filter(a -> a.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no annotation " + name + " in " + e));
    }

    private static void awaitPlatformMBeanServer() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PlatformMBeans.ifReady() == null) {
            assertTrue(System.nanoTime() < deadline, "the platform MBean server did not start");
            Thread.sleep(10);
        }
    }

    /**
     * A thread that knows its OS id and waits: untimed (WAITING) until {@link #toTimedWait}, then timed
     * (TIMED_WAITING) until {@link #end}.
     */
    private static final class Subject {
        final String name;
        final Thread thread;
        /** Read by the thread itself, so after the start the JVM keeps for it. */
        private volatile long runningSince;
        final CountDownLatch toTimedWait = new CountDownLatch(1);
        private final CountDownLatch toEnd = new CountDownLatch(1);
        private final CountDownLatch tidKnown = new CountDownLatch(1);
        volatile long tid = -1;

        Subject(String name) throws InterruptedException {
            this.name = name;
            thread = new Thread(this::run, name);
            thread.setDaemon(true);
            thread.start();
            tidKnown.await();
            awaitState(Thread.State.WAITING);
        }

        private void run() {
            runningSince = System.nanoTime();
            try {
                String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
                tid = Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
                tidKnown.countDown();
                toTimedWait.await();
                toEnd.await(1, TimeUnit.HOURS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        /** Waits until the thread is in {@code state} (it gets there on its own, within microseconds). */
        void awaitState(Thread.State state) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (thread.getState() != state) {
                assertTrue(System.nanoTime() < deadline, name + " is " + thread.getState() + ", not " + state);
                Thread.sleep(1);
            }
        }

        /**
         * Waits until the thread is older than a dump can tell apart from new (it prints ages rounded to
         * 10 ms): a thread a few ms old when the session starts is taken for one started during it (its
         * age printed as 0.00 s), and announced as "thread start" instead of "thread".
         */
        void awaitOlderThanADumpCanTell() throws InterruptedException {
            long until = runningSince + TimeUnit.MILLISECONDS.toNanos(25);
            while (System.nanoTime() - until < 0) {
                Thread.sleep(1);
            }
        }

        void end() throws InterruptedException {
            toTimedWait.countDown();
            toEnd.countDown();
            thread.join();
        }
    }
}
