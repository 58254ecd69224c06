package io.jtrace.agent.threads;

import io.jtrace.agent.tracks.DebugAnnotations;
import io.jtrace.agent.tracks.PolledSequence;
import io.jtrace.agent.tracks.Sampler;
import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
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
    private final ThreadTable table = new ThreadTable();
    /** The OS tids of the placed threads. */
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
    /**
     * A thread that is RUNNABLE but used no CPU between its last two reads (it waits in native code: a
     * socket read, a selector, the JVM's Reference Handler and Signal Dispatcher) has its CPU time read
     * only every this many samples, until a read finds it moved: then at every sample again while it
     * stays RUNNABLE. Such threads are a third of the reads in a JVM with few busy threads, and in a
     * service that blocks in I/O there is one per connection. CPU such a thread starts to use shows up
     * at most this many periods late (1 s at the default period), the first of it in one step.
     */
    static final int STILL_RUNNABLE_CPU_READ_EVERY = 10;
    /** Slots per {@link #sampleBlock} call. */
    static final int BLOCK = 32;
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
                nextDumpNanos = now + table.size * DUMP_WAIT_PER_THREAD_NANOS;
            }
        }
        unplacedLeft = false;
        boolean released = false;
        for (int from = 0; from < table.size; from += BLOCK) {
            released |= sampleBlock(from, Math.min(from + BLOCK, table.size), listed, now);
        }
        if (released) {
            table.compact();
        }
    }

    /**
     * Samples slots {@code from} to {@code to - 1}; returns whether it released any (ended threads). A
     * method per {@link #BLOCK} slots rather than one loop over all: the JIT compiles a method after
     * some hundreds of calls, and a loop that runs 10 times a second only after many seconds, which it
     * would spend interpreted (a sample of 1,000 threads cost twice as much during a session's first 15 s).
     */
    private boolean sampleBlock(int from, int to, boolean listed, long now) {
        table.observe(from, to);
        boolean released = false;
        for (int i = from; i < to; i++) {
            int observed = table.observed[i];
            int state = observed & ThreadTable.STATE_BITS;
            if (listed ? table.seenInSample[i] != sampleNumber : state == ThreadTable.TERMINATED) {
                long tid = table.tid[i];
                if (tid >= 0) {
                    ended(i, now);
                    placedTids.remove(tid);
                    osNames.forget(tid);
                }
                table.release(i);
                released = true;
            } else if (table.tid[i] >= 0) {
                sample(i, observed, now);
            } else {
                followState(i, state, now);
                unplacedLeft = true;
            }
        }
        return released;
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

    /** Lists the live threads and gives each new one a slot; returns whether any is unplaced. */
    private boolean listNewThreads(long now) {
        int count = enumerate();
        boolean unplaced = false;
        for (int i = 0; i < count; i++) {
            Thread t = live[i];
            int slot = table.slotOf(t);
            if (slot < 0) {
                slot = table.add(t, now, sampleNumber);
            }
            table.seenInSample[slot] = sampleNumber;
            unplaced |= table.tid[slot] < 0;
        }
        Arrays.fill(live, 0, count, null);
        return unplaced;
    }

    /** At the session's end: every open stretch closes now. */
    @Override
    public void last(long now) {
        sample(now);
        for (int i = 0; i < table.size; i++) {
            if (table.tid[i] >= 0 && table.state[i] != ThreadTable.NO_STATE) {
                writeStretch(i, now);
                table.state[i] = ThreadTable.NO_STATE;
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
        for (int i = 0; i < table.size; i++) {
            if (table.tid[i] < 0) {
                NativeThreadIds.Placement p = placements.get(table.javaId[i]);
                if (p != null) {
                    place(i, p.tid(), p.startNanos());
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
        Map<String, List<Integer>> wanted = new HashMap<>();
        for (int i = 0; i < table.size; i++) {
            if (table.tid[i] < 0) {
                wanted.computeIfAbsent(OsThreadNames.nativeName(table.thread[i].getName()), k -> new ArrayList<>(1)).add(i);
            }
        }
        Map<String, OsThreadNames.Task> available = osNames.unplacedByName(placedTids, sampleNumber);
        boolean left = false;
        for (Map.Entry<String, List<Integer>> e : wanted.entrySet()) {
            OsThreadNames.Task task = available.get(e.getKey());
            int only = e.getValue().get(0);
            // The OS thread must be as new as the Java thread: an older one of the same name (a thread
            // renamed by another keeps its OS name) is someone else.
            if (e.getValue().size() == 1 && task != null && task.tid() > 0
                    && task.firstListed() >= table.firstSample[only] - 1) {
                place(only, task.tid(), table.firstSeenNanos[only]);
            } else {
                for (int i : e.getValue()) {
                    left |= sampleNumber - table.firstSample[i] >= 2;
                }
            }
        }
        return left;
    }

    private void place(int i, long tid, long startNanos) {
        // A dump gives a thread's age in whole 10 ms: a thread listed at the session's first sample ran
        // before the session, even if its rounded age puts its start a few milliseconds after.
        table.place(i, tid, table.firstSample[i] == 1 ? Math.min(startNanos, sessionStartNanos) : startNanos,
                sequence.process());
        placedTids.add(tid);
    }

    /** One placed thread at this sample; {@code observed} as {@link ThreadTable#observe} read it. */
    private void sample(int i, int observed, long now) {
        ThreadTable t = table;
        String was = t.name[i];
        String name = was;
        boolean renamed = false;
        if ((observed & ThreadTable.NAME_CHANGED) != 0) {
            name = t.thread[i].getName();
            renamed = !name.equals(was);
        }
        boolean republishCpu = false;
        if (describeInThisEpoch(i, name)) {
            republishCpu = cpuTime;
        } else if (renamed) {
            describe(i, name);
        }
        if (!t.announced[i]) {
            t.announced[i] = announce(i);
        } else if (renamed) {
            ProtoWriter p = sequence.beginEvent(now, TrackEvent.Type.TYPE_INSTANT_VALUE, t.stateUuid[i]);
            if (p != null) {
                p.string(TrackEvent.NAME_FIELD_NUMBER, "renamed");
                DebugAnnotations.string(p, "from", was);
                DebugAnnotations.string(p, "to", name);
                sequence.endEvent();
            }
        }
        t.name[i] = name;
        int state = observed & ThreadTable.STATE_BITS;
        boolean changed = state != t.state[i];
        if (changed && state != ThreadTable.TERMINATED && state != ThreadTable.NEW) {
            if (t.state[i] != ThreadTable.NO_STATE) {
                writeStretch(i, now);
            }
            t.state[i] = (byte) state;
            t.stateSince[i] = now;
        }
        if (!cpuTime) {
            return;
        }
        if (state == ThreadTable.TERMINATED) {
            // Gone since it was listed: no CPU time to read (HotSpot 17 would search every thread for it).
            return;
        }
        long last = t.cpuNanos[i];
        boolean runnable = state == ThreadTable.RUNNABLE;
        // A thread that changed state since the last sample ran in between; one RUNNABLE runs if its
        // last read found it had. The others take their turns by Java id, so the reads of a sample are
        // spread evenly.
        if (changed || (runnable && t.cpuMoved[i]) || last < 0
                || (sampleNumber + t.javaId[i]) % (runnable ? STILL_RUNNABLE_CPU_READ_EVERY : IDLE_CPU_READ_EVERY) == 0) {
            // One thread per call: a call for many would hold the JVM's thread list while it reads them
            // all, and on JDK 17 every thread that exits meanwhile waits for it (10,000 threads ending
            // together took minutes).
            long cpu = threadBean.getThreadCpuTime(t.javaId[i]);
            t.cpuMoved[i] = cpu != last;
            if (cpu >= 0 && (cpu != last || republishCpu) && sequence.counter(t.cpuUuid[i], now, cpu)) {
                t.cpuNanos[i] = cpu;
            }
        } else if (republishCpu && !sequence.counter(t.cpuUuid[i], now, last)) {
            // The counter needs a value in the new epoch: an idle thread's last one is still true (the
            // counter is cumulative), so it is written again rather than read again, which would cost
            // a system call per thread at every incremental-state clear.
            t.cpuNanos[i] = -1; // not written: read and written at the next sample
        }
    }

    /**
     * A thread not placed yet has no track to write on, but its state is followed from the first
     * sample that saw it: the stretch it is in when it is placed begins where it really began.
     */
    private void followState(int i, int state, long now) {
        if (state != table.state[i] && state != ThreadTable.TERMINATED && state != ThreadTable.NEW) {
            table.state[i] = (byte) state;
            table.stateSince[i] = now;
        }
    }

    /**
     * Describes the thread's track and the tracks under it unless the sequence has done so in its current
     * epoch ({@link PolledSequence#needsDescribing}): every event on them must follow a descriptor in its
     * own epoch, or a ring that overwrote the older one leaves it on a track the trace never names.
     * Returns whether it described them.
     */
    private boolean describeInThisEpoch(int i, String name) {
        ThreadTable t = table;
        if (!sequence.needsDescribing(t.describedEpoch[i])) {
            return false;
        }
        t.describedEpoch[i] = sequence.epoch();
        describe(i, name);
        sequence.describeSliceTrack(t.stateUuid[i], t.trackUuid[i], ThreadsDataSource.STATE_TRACK);
        if (cpuTime) {
            sequence.describeCounter(t.cpuUuid[i], t.trackUuid[i], ThreadsDataSource.CPU_TRACK, CounterDescriptor.Unit.UNIT_TIME_NS);
        }
        return true;
    }

    private void describe(int i, String name) {
        ProtoWriter p = sequence.writer().beginPacket();
        sequence.process().writeThreadDescriptor(p, table.trackUuid[i], table.tid[i], name);
        sequence.writer().endPacket();
    }

    /**
     * "thread start" where it started during the session; "thread" at the session's start for the others.
     * Returns whether it was written (if not, the next sample tries again).
     */
    private boolean announce(int i) {
        boolean startedDuringSession = table.startNanos[i] > sessionStartNanos;
        long at = startedDuringSession ? table.startNanos[i] : sessionStartNanos;
        ProtoWriter p = sequence.beginEvent(at, TrackEvent.Type.TYPE_INSTANT_VALUE, table.stateUuid[i]);
        if (p == null) {
            return false;
        }
        Thread thread = table.thread[i];
        p.string(TrackEvent.NAME_FIELD_NUMBER, startedDuringSession ? "thread start" : "thread");
        DebugAnnotations.integer(p, "java_thread_id", table.javaId[i]);
        DebugAnnotations.bool(p, "daemon", thread.isDaemon());
        DebugAnnotations.integer(p, "priority", thread.getPriority());
        ThreadGroup group = thread.getThreadGroup();
        if (group != null) {
            DebugAnnotations.string(p, "group", group.getName());
        }
        return sequence.endEvent();
    }

    /**
     * The thread's last stretch and its end. It may end in the first sample of a new epoch, before any
     * sample described it there (or right after its placement's descriptors were lost): described first.
     */
    private void ended(int i, long now) {
        describeInThisEpoch(i, table.name[i]);
        if (!table.announced[i]) {
            table.announced[i] = announce(i);
        }
        if (table.state[i] != ThreadTable.NO_STATE) {
            writeStretch(i, now);
        }
        ProtoWriter p = sequence.beginEvent(now, TrackEvent.Type.TYPE_INSTANT_VALUE, table.stateUuid[i]);
        if (p != null) {
            p.string(TrackEvent.NAME_FIELD_NUMBER, "thread end");
            sequence.endEvent();
        }
    }

    /**
     * A stretch: its begin and end, or nothing when even the begin does not fit the SMB. An end dropped
     * after its begin leaves the stretch open; the drop marks the loss on the sequence.
     */
    private void writeStretch(int i, long end) {
        long track = table.stateUuid[i];
        ProtoWriter p = sequence.beginEvent(table.stateSince[i], TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE, track);
        if (p == null) {
            return;
        }
        p.string(TrackEvent.NAME_FIELD_NUMBER, ThreadTable.stateName(table.state[i]));
        if (sequence.endEvent() && sequence.beginEvent(end, TrackEvent.Type.TYPE_SLICE_END_VALUE, track) != null) {
            sequence.endEvent();
        }
    }
}
