package io.jtrace.agent.trackevent;

import io.jtrace.agent.tracks.OsThreadId;
import io.jtrace.api.Category;
import io.jtrace.shm.writer.TraceWriter;
import java.util.HashMap;
import java.util.IdentityHashMap;

/**
 * One application thread's track_event state for the current session: its writer (its sequence) and
 * the names, categories and counter tracks already interned or described on that sequence. Touched only
 * by its own thread.
 */
final class ThreadState {
    final long tid = OsThreadId.current();
    final Thread thread = Thread.currentThread();
    ActiveSession session;
    TraceWriter writer;
    /** The session's incremental-state generation this sequence last started from. */
    int generation;
    /** The writer's drop count when this sequence's incremental state was last written. */
    long drops;
    final HashMap<String, Integer> nameIids = new HashMap<>();
    final IdentityHashMap<Category, Integer> categoryIids = new IdentityHashMap<>();
    final HashMap<String, Long> counterTracks = new HashMap<>();
    int nextNameIid = 1;
    int nextCategoryIid = 1;
    /** The last name and category looked up: repeated events usually pass the same String instance. */
    private String lastName;
    private int lastNameIid;
    private Category lastCategory;
    private int lastCategoryIid;

    /** The interned id of {@code name} on this sequence, or 0. */
    int nameIid(String name) {
        if (name == lastName) {
            return lastNameIid;
        }
        Integer iid = nameIids.get(name);
        if (iid == null) {
            return 0;
        }
        lastName = name;
        lastNameIid = iid;
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

    /** Starts a new sequence for {@code next}: everything interned on the old one is forgotten. */
    void rebind(ActiveSession next) {
        if (writer != null) {
            writer.close();
        }
        session = next;
        writer = next.context().newTraceWriter();
        clearIncrementalState();
    }

    /** Forgets what was interned and described on this sequence; the caller writes a new header. */
    void clearIncrementalState() {
        nameIids.clear();
        categoryIids.clear();
        lastName = null;
        lastCategory = null;
        counterTracks.clear();
        nextNameIid = 1;
        nextCategoryIid = 1;
    }
}
