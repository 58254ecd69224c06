package io.jtrace.agent.threads;

import io.jtrace.agent.tracks.DebugAnnotations;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.agent.tracks.Sampler;
import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.JMException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sample of every live platform thread, taken on the sampler thread each period: a track per
 * thread (its OS tid, so track_event's slices of the same thread land on it), a "Java state" track
 * under it whose slices are the thread's state stretches (RUNNABLE, BLOCKED, WAITING, TIMED_WAITING),
 * and a "CPU time" counter under it. Threads that start, end or are renamed during the session show up
 * as instants on their state track.
 *
 * <p>A thread's OS tid comes from a thread dump ({@link NativeThreadIds}) for the threads running at the
 * session's start, and from its native name ({@link OsThreadNames}) for the ones that start later; a
 * dump again only for those whose names are ambiguous.
 *
 * <p>A state stretch is written whole (begin and end) when it ends, with absolute timestamps: a stretch
 * is then never half in the trace, whatever the ring buffer overwrote before it. A state change is seen
 * at the first sample after it, so a stretch's edges are exact to one period.
 */
final class ThreadSampler implements Sampler {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadSampler.class);

    private final PolledSequence sequence;
    private final ThreadMXBean threadBean;
    private final boolean cpuTime;
    /**
     * The wait after a dump, per live thread. A dump is a safepoint operation: it stops every thread for
     * about 8.5 µs per thread (1,000 threads: 8.5 ms, 2 cores, JDK 17 and 25), so dumps may stop the
     * JVM for at most 0.25 % of the time: 400 times that. Counted from the thread count rather than
     * timed, since a young JVM's first dumps run slow.
     */
    static final long DUMP_WAIT_PER_THREAD_NANOS = 3_400_000L;
    /** By thread identity: no boxing of ids per thread per sample. */
    private final Map<Thread, ThreadRecord> records = new IdentityHashMap<>();
    /** The OS tids of the placed records. */
    private final Set<Long> placedTids = new HashSet<>();
    private final OsThreadNames osNames = new OsThreadNames();
    /**
     * A thread that is not RUNNABLE at this sample and has not changed state since the last one has its
     * CPU time read only every this many samples: reading it is a third of a sample's cost (a system
     * call per thread, 1 to 4 µs each on this project's VMs with cold caches), and most threads of a big
     * service are parked. The counter is cumulative, so no CPU time is lost: CPU a thread used without
     * ever being seen running or changing state shows up to this many periods late, and such a thread
     * ran only briefly between samples (one that runs much is caught RUNNABLE at a sample).
     */
    static final int IDLE_CPU_READ_EVERY = 50;
    private Thread[] live = new Thread[64];
    private long sessionStartNanos;
    /** No dump before this (CLOCK_MONOTONIC ns). */
    private long nextDumpNanos;
    /** Set during the first sample: every thread is placed by a dump. */
    private boolean dumpAll;
    /** Set when this JVM cannot dump threads (logged once): nothing more is tried. */
    private boolean dumpUnavailable;
    private long sampleNumber;
    /** The JVM's count of platform threads ever started, when this sampler last read it. */
    private long startedThreads = -1;
    private boolean changedAtLastSample;
    /** Whether the last sample left a thread unplaced: names and dumps get their next chance. */
    private boolean unplacedLeft;

    ThreadSampler(PolledSequence sequence, ThreadMXBean threadBean) {
        this.sequence = sequence;
        this.threadBean = threadBean;
        this.cpuTime = threadBean.isThreadCpuTimeSupported() && threadBean.isThreadCpuTimeEnabled();
    }

    @Override
    public void first(long now) {
        sessionStartNanos = now;
        nextDumpNanos = now;
        // The threads already running are placed by a dump, which also tells when each started (by
        // their names from the next samples on if the JVM's MBean server is not up yet).
        dumpAll = true;
        sample(now);
        dumpAll = false;
        // Lists the OS threads there are now, so that none of them passes for a new one later.
        osNames.unplacedByName(placedTids, sampleNumber);
    }

    /** Every thread's state and CPU time now; threads gone since the last sample end here. */
    @Override
    public void sample(long now) {
        sampleNumber++;
        // Listing the JVM's threads is a third of a sample's cost with 1,000 threads, and in a steady
        // service no thread starts between most samples: they are listed only when one may have.
        boolean listed = threadsMayHaveStarted() | unplacedLeft;
        boolean unplaced = listed && listNewThreads(now);
        if (unplaced && !dumpAll) {
            unplaced = placeByName();
        }
        if (unplaced && !dumpUnavailable && now - nextDumpNanos >= 0) {
            if (placeByDump()) {
                nextDumpNanos = now + records.size() * DUMP_WAIT_PER_THREAD_NANOS;
            }
        }
        unplacedLeft = false;
        for (Iterator<ThreadRecord> it = records.values().iterator(); it.hasNext(); ) {
            ThreadRecord r = it.next();
            if (listed ? r.seenInSample != sampleNumber : r.thread.getState() == Thread.State.TERMINATED) {
                if (r.tid >= 0) {
                    ended(r, now);
                    placedTids.remove(r.tid);
                    osNames.forget(r.tid);
                }
                it.remove();
            } else if (r.tid >= 0) {
                sample(r, now);
            } else {
                followState(r, now);
                unplacedLeft = true;
            }
        }
    }

    /**
     * Whether a platform thread may have started since the threads were last listed. The JVM counts a
     * thread as started just before it adds it to the thread list that {@link ThreadGroup#enumerate}
     * reads on JDK 19+, so a count that changed lists the threads at this sample and at the next one:
     * a thread counted but not listed yet at this one is listed at the next.
     */
    private boolean threadsMayHaveStarted() {
        long started = threadBean.getTotalStartedThreadCount();
        boolean changed = started != startedThreads;
        boolean listAgain = changedAtLastSample;
        startedThreads = started;
        changedAtLastSample = changed;
        return changed || listAgain;
    }

    /** Lists the live threads and makes a record for each new one; returns whether any is unplaced. */
    private boolean listNewThreads(long now) {
        int count = enumerate();
        boolean unplaced = false;
        for (int i = 0; i < count; i++) {
            Thread t = live[i];
            ThreadRecord r = records.get(t);
            if (r == null) {
                r = new ThreadRecord(t, now, sampleNumber);
                records.put(t, r);
            }
            r.seenInSample = sampleNumber;
            unplaced |= r.tid < 0;
        }
        Arrays.fill(live, 0, count, null);
        return unplaced;
    }

    /** At the session's end: every open stretch closes now. */
    @Override
    public void last(long now) {
        sample(now);
        for (ThreadRecord r : records.values()) {
            if (r.tid >= 0 && r.state != null) {
                writeStretch(r, now);
                r.state = null;
            }
        }
    }

    private int enumerate() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        while (true) {
            int n = root.enumerate(live, true);
            if (n < live.length) {
                return n;
            }
            live = new Thread[live.length * 2];
        }
    }

    /** Returns false when no dump could be taken this time (the MBean server is still starting). */
    private boolean placeByDump() {
        Map<Long, NativeThreadIds.Placement> placements;
        try {
            placements = NativeThreadIds.dump();
        } catch (JMException | RuntimeException e) {
            dumpUnavailable = true;
            LOG.warn("jtrace jvm.threads: cannot learn the OS ids of threads (no Thread.print diagnostic"
                    + " command in this JVM?); threads that do not trace themselves get no track", e);
            return false;
        }
        if (placements == null) {
            return false; // names place what they can meanwhile
        }
        int placed = 0;
        for (ThreadRecord r : records.values()) {
            if (r.tid < 0) {
                NativeThreadIds.Placement p = placements.get(r.javaId);
                if (p != null) {
                    place(r, p.tid(), p.startNanos());
                    placed++;
                }
            }
        }
        LOG.debug("jtrace jvm.threads: a thread dump placed {} thread(s)", placed);
        return true;
    }

    /**
     * Places the threads whose native name (see {@link OsThreadNames}) picks out one OS thread nobody has
     * placed; their start is taken as the sample that first saw them. Returns whether some are left that
     * the names had their chance at (two samples: the first only notes a new OS thread), which only a
     * dump can place.
     */
    private boolean placeByName() {
        Map<String, List<ThreadRecord>> wanted = new HashMap<>();
        for (ThreadRecord r : records.values()) {
            if (r.tid < 0) {
                wanted.computeIfAbsent(OsThreadNames.nativeName(r.thread.getName()), k -> new ArrayList<>(1)).add(r);
            }
        }
        Map<String, OsThreadNames.Task> available = osNames.unplacedByName(placedTids, sampleNumber);
        boolean left = false;
        for (Map.Entry<String, List<ThreadRecord>> e : wanted.entrySet()) {
            OsThreadNames.Task task = available.get(e.getKey());
            ThreadRecord only = e.getValue().get(0);
            // The OS thread must be as new as the Java thread: an older one of the same name (a thread
            // renamed by another keeps its OS name) is someone else.
            if (e.getValue().size() == 1 && task != null && task.tid() > 0 && task.firstListed() >= only.firstSample - 1) {
                place(only, task.tid(), only.firstSeenNanos);
            } else {
                for (ThreadRecord r : e.getValue()) {
                    left |= sampleNumber - r.firstSample >= 2;
                }
            }
        }
        return left;
    }

    private void place(ThreadRecord r, long tid, long startNanos) {
        // A dump gives a thread's age in whole 10 ms: a thread listed at the session's first sample ran
        // before the session, even if its rounded age puts its start a few milliseconds after.
        r.place(tid, r.firstSample == 1 ? Math.min(startNanos, sessionStartNanos) : startNanos, sequence.process());
        placedTids.add(tid);
    }

    private void sample(ThreadRecord r, long now) {
        String name = r.thread.getName();
        boolean republishCpu = false;
        boolean renamed = !name.equals(r.name);
        if (r.describedEpoch != sequence.epoch()) {
            r.describedEpoch = sequence.epoch();
            describe(r, name);
            sequence.describeSliceTrack(r.stateUuid, r.trackUuid, ThreadsDataSource.STATE_TRACK);
            if (cpuTime) {
                sequence.describeCounter(r.cpuUuid, r.trackUuid, ThreadsDataSource.CPU_TRACK, CounterDescriptor.Unit.UNIT_TIME_NS);
                republishCpu = true;
            }
        } else if (renamed) {
            describe(r, name);
        }
        if (!r.announced) {
            r.announced = announce(r);
        } else if (renamed) {
            ProtoWriter p = sequence.beginEvent(now, TrackEvent.Type.TYPE_INSTANT_VALUE, r.stateUuid);
            if (p != null) {
                p.string(TrackEvent.NAME_FIELD_NUMBER, "renamed");
                DebugAnnotations.string(p, "from", r.name);
                DebugAnnotations.string(p, "to", name);
                sequence.endEvent();
            }
        }
        r.name = name;
        Thread.State state = r.thread.getState();
        // A thread that changed state since the last sample ran in between.
        boolean ranRecently = state == Thread.State.RUNNABLE || state != r.state;
        if (state != r.state && state != Thread.State.TERMINATED && state != Thread.State.NEW) {
            if (r.state != null) {
                writeStretch(r, now);
            }
            r.state = state;
            r.stateSince = now;
        }
        // Idle threads take their turns by Java id, so the reads of a sample are spread evenly.
        if (!cpuTime) {
            return;
        }
        if (state == Thread.State.TERMINATED) {
            // Gone since it was listed: no CPU time to read (HotSpot 17 would search every thread for it).
            return;
        }
        if (ranRecently || r.cpuNanos < 0 || (sampleNumber + r.javaId) % IDLE_CPU_READ_EVERY == 0) {
            // One thread per call: a call for many would hold the JVM's thread list while it reads them
            // all, and on JDK 17 every thread that exits meanwhile waits for it (10,000 threads ending
            // together took minutes).
            long cpu = threadBean.getThreadCpuTime(r.javaId);
            if (cpu >= 0 && (cpu != r.cpuNanos || republishCpu) && sequence.counter(r.cpuUuid, now, cpu)) {
                r.cpuNanos = cpu;
            }
        } else if (republishCpu && !sequence.counter(r.cpuUuid, now, r.cpuNanos)) {
            // The counter needs a value in the new epoch: an idle thread's last one is still true (the
            // counter is cumulative), so it is written again rather than read again, which would cost
            // a system call per thread at every incremental-state clear.
            r.cpuNanos = -1; // not written: read and written at the next sample
        }
    }

    /**
     * A thread not placed yet has no track to write on, but its state is followed from the first
     * sample that saw it: the stretch it is in when it is placed begins where it really began.
     */
    private static void followState(ThreadRecord r, long now) {
        Thread.State state = r.thread.getState();
        if (state != r.state && state != Thread.State.TERMINATED && state != Thread.State.NEW) {
            r.state = state;
            r.stateSince = now;
        }
    }

    private void describe(ThreadRecord r, String name) {
        ProtoWriter p = sequence.writer().beginPacket();
        sequence.process().writeThreadDescriptor(p, r.tid, name);
        sequence.writer().endPacket();
    }

    /**
     * "thread start" where it started during the session; "thread" at the session's start for the others.
     * Returns whether it was written (if not, the next sample tries again).
     */
    private boolean announce(ThreadRecord r) {
        boolean startedDuringSession = r.startNanos > sessionStartNanos;
        long at = startedDuringSession ? r.startNanos : sessionStartNanos;
        ProtoWriter p = sequence.beginEvent(at, TrackEvent.Type.TYPE_INSTANT_VALUE, r.stateUuid);
        if (p == null) {
            return false;
        }
        p.string(TrackEvent.NAME_FIELD_NUMBER, startedDuringSession ? "thread start" : "thread");
        DebugAnnotations.integer(p, "java_thread_id", r.javaId);
        DebugAnnotations.bool(p, "daemon", r.thread.isDaemon());
        DebugAnnotations.integer(p, "priority", r.thread.getPriority());
        ThreadGroup group = r.thread.getThreadGroup();
        if (group != null) {
            DebugAnnotations.string(p, "group", group.getName());
        }
        return sequence.endEvent();
    }

    private void ended(ThreadRecord r, long now) {
        if (r.state != null) {
            writeStretch(r, now);
        }
        ProtoWriter p = sequence.beginEvent(now, TrackEvent.Type.TYPE_INSTANT_VALUE, r.stateUuid);
        if (p != null) {
            p.string(TrackEvent.NAME_FIELD_NUMBER, "thread end");
            sequence.endEvent();
        }
    }

    /**
     * A stretch: its begin and end, or nothing when even the begin does not fit the SMB. An end dropped
     * after its begin leaves the stretch open; the drop marks the loss on the sequence.
     */
    private void writeStretch(ThreadRecord r, long end) {
        ProtoWriter p = sequence.beginEvent(r.stateSince, TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE, r.stateUuid);
        if (p == null) {
            return;
        }
        p.string(TrackEvent.NAME_FIELD_NUMBER, r.state.name());
        if (sequence.endEvent() && sequence.beginEvent(end, TrackEvent.Type.TYPE_SLICE_END_VALUE, r.stateUuid) != null) {
            sequence.endEvent();
        }
    }

    /** What the sampler knows of one thread. */
    private static final class ThreadRecord {
        final Thread thread;
        final long javaId;
        /** The sample that first saw the thread: its start, when no dump tells it. */
        final long firstSeenNanos;
        final long firstSample;
        long tid = -1;
        long startNanos;
        long trackUuid;
        long stateUuid;
        long cpuUuid;
        String name;
        boolean announced;
        Thread.State state;
        long stateSince;
        long cpuNanos = -1;
        int describedEpoch = -1;
        long seenInSample;

        ThreadRecord(Thread thread, long firstSeenNanos, long firstSample) {
            this.thread = thread;
            this.javaId = thread.getId();
            this.firstSeenNanos = firstSeenNanos;
            this.firstSample = firstSample;
        }

        void place(long tid, long startNanos, ProcessTrack process) {
            this.tid = tid;
            this.startNanos = startNanos;
            trackUuid = process.threadUuid(tid);
            stateUuid = process.namedUuid("thread-state:" + tid);
            cpuUuid = process.namedUuid("thread-cpu:" + tid);
            name = thread.getName();
        }
    }
}
