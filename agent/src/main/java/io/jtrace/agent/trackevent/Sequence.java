package io.jtrace.agent.trackevent;

import io.jtrace.api.Category;
import io.jtrace.shm.writer.TraceWriter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;

/**
 * One track_event sequence: a {@link TraceWriter} and what has been interned or described on it. Used
 * by one thread at a time: either the thread that owns it, or whichever thread has claimed it from the
 * {@link SequencePool}.
 *
 * <h2>Claiming (pooled sequences only)</h2>
 * {@link #tryClaim} is a CAS of {@code claimed} 0 → 1 and {@link #release} a release store of 0. The CAS
 * (volatile semantics) reads the value the previous holder's release store wrote, so every plain write
 * that holder made to this object, its writer and its maps happens-before the new holder's first read:
 * the sequence's state passes from thread to thread intact without any other synchronisation.
 */
final class Sequence {
    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(Sequence.class, "claimed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final TraceWriter writer;
    /** The track events go to when they name none: the owning thread's track; 0 for a pooled sequence. */
    final long defaultTrack;
    /** The session's incremental-state generation this sequence last started from; -1 before its header. */
    int generation = -1;
    /** The writer's drop count when this sequence's incremental state was last written. */
    long drops;
    /**
     * The writer's {@link TraceWriter#restartEpoch} when this sequence's incremental state was last
     * written. Taken before the header is written: a header that lost packets, or that had to take a new
     * chunk (and may lie in the previous one), moves the epoch, and the next event restarts again.
     */
    long restartEpoch = -1;
    /** The sequence's incremental clock: the last timestamp written on it (CLOCK_MONOTONIC ns). */
    private long clock;
    private final HashMap<String, Integer> nameIids = new HashMap<>();
    private final IdentityHashMap<Category, Integer> categoryIids = new IdentityHashMap<>();
    private final HashMap<String, Long> counterTracks = new HashMap<>();
    private int nextNameIid = 1;
    private int nextCategoryIid = 1;
    /**
     * The names looked up lately and their iids, one per slot of {@link #nameSlot}: a thread that
     * alternates between a few names (nested slices, a handful of operations) finds each without a map
     * lookup, so its begins take the hot path too. Events pass the same String instances again and again
     * (literals, constants), so a slot matches by identity; a name that shares a slot with another in use
     * only costs map lookups. Cleared with the rest of the incremental state.
     */
    private final String[] recentNames = new String[NAME_SLOTS];
    private final int[] recentNameIids = new int[NAME_SLOTS];
    /** The last category looked up: a thread's events usually pass the same instance. */
    private Category lastCategory;
    private int lastCategoryIid;
    @SuppressWarnings("unused") // accessed through CLAIMED
    private volatile int claimed;

    /** Slots of {@link #recentNames}: a power of two. */
    static final int NAME_SLOTS = 8;

    /**
     * The session an own sequence was opened in; null for a pooled one. Final, so another thread that
     * reads the sequence from a racy field (the live loss count's scan) sees the right one with it.
     */
    final ActiveSession session;

    Sequence(TraceWriter writer, long defaultTrack) {
        this(writer, defaultTrack, null);
    }

    Sequence(TraceWriter writer, long defaultTrack, ActiveSession session) {
        this.writer = writer;
        this.defaultTrack = defaultTrack;
        this.session = session;
    }

    boolean pooled() {
        return defaultTrack == 0;
    }

    /** Pooled sequences: takes the sequence for one event. The plain read first keeps a busy slot cheap to skip. */
    boolean tryClaim() {
        return (int) CLAIMED.getOpaque(this) == 0 && CLAIMED.compareAndSet(this, 0, 1);
    }

    /** Hands the sequence to the next claimer (see the class comment for the ordering). */
    void release() {
        CLAIMED.setRelease(this, 0);
    }

    /** Whether the next event must first start the sequence's incremental state over. */
    boolean needsRestart(int sessionGeneration) {
        return generation != sessionGeneration || restartEpoch != writer.restartEpoch();
    }

    /**
     * The timestamp field of a packet at {@code timestamp}: its distance from the sequence's previous
     * timestamp, which it becomes; or -1 when it is earlier than that (a pooled sequence takes events
     * of several threads, each timed before it claimed the sequence), and the packet must carry it whole.
     */
    long advanceClock(long timestamp) {
        long delta = timestamp - clock;
        if (delta < 0) {
            return -1;
        }
        clock = timestamp;
        return delta;
    }

    /**
     * The hot path of a slice on an own sequence ({@link HotSequence}): writes the event in its smallest
     * form if nothing needs more — no restart, a name among {@link #recentNames} and the category the
     * last lookup found interned (a null one is absent from the event), a timestamp not before the sequence's clock, room
     * in the current chunk or a free next one. While the SMB is known full it drops the event instead
     * ({@link TraceWriter#dropIfSmbFull}, counted): the general route would end the same way, at several
     * times the cost, and under overload most events take this branch. Returns whether the event was
     * written or dropped; false, having written and changed nothing, when the general route must take it.
     */
    boolean tryPlainEvent(int sessionGeneration, int type, Category category, String name, long timestamp) {
        if (needsRestart(sessionGeneration)) {
            // After a loss (or a cleared incremental state) the event must first restart the sequence,
            // which needs a chunk.
            return writer.dropIfSmbFull();
        }
        int categoryIid = 0;
        if (category != null) {
            if (category != lastCategory) {
                return false;
            }
            categoryIid = lastCategoryIid;
        }
        int nameIid = 0;
        if (name != null) {
            int slot = nameSlot(name);
            if (recentNames[slot] != name) {
                return false;
            }
            nameIid = recentNameIids[slot];
        }
        long delta = timestamp - clock;
        if (!SmallEventEncoder.tryWrite(writer, delta, type, categoryIid, nameIid, 0)) {
            return writer.dropIfSmbFull();
        }
        clock = timestamp;
        return true;
    }

    /** Where {@code name} is remembered in {@link #recentNames}: its String hash, whose value the String keeps. */
    static int nameSlot(String name) {
        int h = name.hashCode();
        return (h ^ h >>> 16) & (NAME_SLOTS - 1);
    }

    /** The interned id of {@code name} on this sequence, or 0. */
    int nameIid(String name) {
        int slot = nameSlot(name);
        if (recentNames[slot] == name) {
            return recentNameIids[slot];
        }
        Integer iid = nameIids.get(name);
        if (iid == null) {
            return 0;
        }
        recentNames[slot] = name;
        recentNameIids[slot] = iid;
        return iid;
    }

    /** The interned id of {@code category} on this sequence, or 0. */
    int categoryIid(Category category) {
        if (category == lastCategory) {
            return lastCategoryIid;
        }
        Integer iid = categoryIids.get(category);
        if (iid == null) {
            return 0;
        }
        lastCategory = category;
        lastCategoryIid = iid;
        return iid;
    }

    int internName(String name) {
        int iid = nextNameIid++;
        nameIids.put(name, iid);
        int slot = nameSlot(name);
        recentNames[slot] = name;
        recentNameIids[slot] = iid;
        return iid;
    }

    int internCategory(Category category) {
        int iid = nextCategoryIid++;
        categoryIids.put(category, iid);
        return iid;
    }

    /** The counter track already described on this sequence for {@code name}, or null. */
    Long counterTrack(String name) {
        return counterTracks.get(name);
    }

    void counterTrackDescribed(String name, long uuid) {
        counterTracks.put(name, uuid);
    }

    /**
     * Forgets what was interned and described and sets the incremental clock to {@code clockBase}; the
     * caller writes a new header saying so, and records the generation and drop count it starts from.
     */
    void clearIncrementalState(int sessionGeneration, long clockBase) {
        clock = clockBase;
        nameIids.clear();
        categoryIids.clear();
        Arrays.fill(recentNames, null);
        lastCategory = null;
        counterTracks.clear();
        nextNameIid = 1;
        nextCategoryIid = 1;
        generation = sessionGeneration;
        drops = writer.droppedPackets();
        restartEpoch = writer.restartEpoch();
    }
}
