package io.jtrace.agent.threads;

import io.jtrace.producer.tracks.ProcessTrack;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What {@link ThreadSampler} knows of each live platform thread: a slot per thread in parallel arrays,
 * rather than an object per thread. A sample comes 100 ms after the last one, when none of this is in
 * the CPU's caches any more: arrays read in slot order are prefetched, where an object per thread (and
 * the map holding it) cost cache misses of their own for every thread at every sample. Slots stay
 * dense: the slots of ended threads are {@link #release released} during a sample and the later ones
 * moved down by {@link #compact} after it. Sampler thread only.
 */
final class ThreadTable {
    /** A slot's {@link #state} before its first stretch, and after the last. */
    static final byte NO_STATE = -1;
    /** In {@link #observed}: the thread's name is not the {@link #name} object any more. */
    static final int NAME_CHANGED = 0x40;
    /** In {@link #observed}: the bits of the {@link Thread.State} ordinal. */
    static final int STATE_BITS = 0x3f;
    static final int NEW = Thread.State.NEW.ordinal();
    static final int RUNNABLE = Thread.State.RUNNABLE.ordinal();
    static final int TERMINATED = Thread.State.TERMINATED.ordinal();
    private static final Thread.State[] STATES = Thread.State.values();

    /** Live slots: 0 to size - 1. */
    int size;
    Thread[] thread = new Thread[64];
    long[] javaId = new long[64];
    /** The OS tid; -1 until the thread is placed. */
    long[] tid = new long[64];
    /** The name last written for the thread (its name when first seen, until placed). */
    String[] name = new String[64];
    long[] trackUuid = new long[64];
    long[] stateUuid = new long[64];
    long[] cpuUuid = new long[64];
    /** When the thread started (CLOCK_MONOTONIC ns): from a dump, or the sample that first saw it. */
    long[] startNanos = new long[64];
    /** The sample that first saw the thread, and its time. */
    long[] firstSample = new long[64];
    long[] firstSeenNanos = new long[64];
    /** The sample whose listing last saw the thread. */
    long[] seenInSample = new long[64];
    /** The {@link Thread.State} ordinal of the stretch the thread is in, since {@link #stateSince}; or {@link #NO_STATE}. */
    byte[] state = new byte[64];
    long[] stateSince = new long[64];
    /** The CPU time last written; -1 when none is (yet) in the sequence's epoch. */
    long[] cpuNanos = new long[64];
    /** Whether the last read of the thread's CPU time found it had moved (or it was the first read). */
    boolean[] cpuMoved = new boolean[64];
    /** The sequence epoch the thread's tracks were last described in. */
    int[] describedEpoch = new int[64];
    boolean[] announced = new boolean[64];
    /** What {@link #observe} read at this sample: the state ordinal, and {@link #NAME_CHANGED}. */
    byte[] observed = new byte[64];

    /** Slot by thread identity, for the listing of threads (samples go by slot). */
    private final Map<Thread, Integer> slots = new IdentityHashMap<>();

    /** The thread's slot, or -1 when it has none. */
    int slotOf(Thread t) {
        Integer slot = slots.get(t);
        return slot == null ? -1 : slot;
    }

    /** A new slot for {@code t}, unplaced, first seen at {@code sample} ({@code now}). */
    int add(Thread t, long now, long sample) {
        if (size == thread.length) {
            grow(size * 2);
        }
        int i = size++;
        slots.put(t, i);
        thread[i] = t;
        javaId[i] = t.getId();
        tid[i] = -1;
        name[i] = t.getName();
        firstSample[i] = sample;
        firstSeenNanos[i] = now;
        seenInSample[i] = sample;
        state[i] = NO_STATE;
        cpuNanos[i] = -1;
        cpuMoved[i] = true;
        describedEpoch[i] = -1;
        announced[i] = false;
        return i;
    }

    /** Gives slot {@code i} its OS thread and tracks. */
    void place(int i, long osTid, long started, ProcessTrack process) {
        tid[i] = osTid;
        startNanos[i] = started;
        trackUuid[i] = process.threadUuid(osTid);
        stateUuid[i] = process.namedUuid("thread-state:" + osTid);
        cpuUuid[i] = process.namedUuid("thread-cpu:" + osTid);
        name[i] = thread[i].getName();
    }

    /**
     * Reads the state of the threads in slots {@code from} to {@code to - 1}, and whether each one's name
     * is still the object last seen, into {@link #observed}: the one pass over the {@code Thread}
     * objects, which are cold. Kept apart from what is done with them so that the CPU overlaps the
     * cache misses of many threads.
     */
    void observe(int from, int to) {
        Thread[] threads = thread;
        String[] names = name;
        byte[] out = observed;
        for (int i = from; i < to; i++) {
            Thread t = threads[i];
            int s = t.getState().ordinal();
            out[i] = (byte) (t.getName() == names[i] ? s : s | NAME_CHANGED);
        }
    }

    static String stateName(int ordinal) {
        return STATES[ordinal].name();
    }

    /** Frees slot {@code i} (its thread ended); the slots stay where they are until {@link #compact}. */
    void release(int i) {
        slots.remove(thread[i]);
        thread[i] = null;
        name[i] = null;
    }

    /** Moves the slots left after {@link #release} down over the released ones, in order. */
    void compact() {
        int to = 0;
        for (int from = 0; from < size; from++) {
            if (thread[from] == null) {
                continue;
            }
            if (from != to) {
                move(from, to);
                slots.put(thread[to], to);
            }
            to++;
        }
        Arrays.fill(thread, to, size, null);
        Arrays.fill(name, to, size, null);
        size = to;
    }

    private void move(int from, int to) {
        thread[to] = thread[from];
        javaId[to] = javaId[from];
        tid[to] = tid[from];
        name[to] = name[from];
        trackUuid[to] = trackUuid[from];
        stateUuid[to] = stateUuid[from];
        cpuUuid[to] = cpuUuid[from];
        startNanos[to] = startNanos[from];
        firstSample[to] = firstSample[from];
        firstSeenNanos[to] = firstSeenNanos[from];
        seenInSample[to] = seenInSample[from];
        state[to] = state[from];
        stateSince[to] = stateSince[from];
        cpuNanos[to] = cpuNanos[from];
        cpuMoved[to] = cpuMoved[from];
        describedEpoch[to] = describedEpoch[from];
        announced[to] = announced[from];
        observed[to] = observed[from];
    }

    private void grow(int capacity) {
        thread = Arrays.copyOf(thread, capacity);
        javaId = Arrays.copyOf(javaId, capacity);
        tid = Arrays.copyOf(tid, capacity);
        name = Arrays.copyOf(name, capacity);
        trackUuid = Arrays.copyOf(trackUuid, capacity);
        stateUuid = Arrays.copyOf(stateUuid, capacity);
        cpuUuid = Arrays.copyOf(cpuUuid, capacity);
        startNanos = Arrays.copyOf(startNanos, capacity);
        firstSample = Arrays.copyOf(firstSample, capacity);
        firstSeenNanos = Arrays.copyOf(firstSeenNanos, capacity);
        seenInSample = Arrays.copyOf(seenInSample, capacity);
        state = Arrays.copyOf(state, capacity);
        stateSince = Arrays.copyOf(stateSince, capacity);
        cpuNanos = Arrays.copyOf(cpuNanos, capacity);
        cpuMoved = Arrays.copyOf(cpuMoved, capacity);
        describedEpoch = Arrays.copyOf(describedEpoch, capacity);
        announced = Arrays.copyOf(announced, capacity);
        observed = Arrays.copyOf(observed, capacity);
    }
}
