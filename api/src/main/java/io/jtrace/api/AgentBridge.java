package io.jtrace.api;

import io.jtrace.api.spi.TrackEventBackend;
import java.util.Collection;
import java.util.function.Consumer;

/**
 * How the tracing agent reaches into the API's state: install its backend, flip categories. Not for
 * applications; it lives in this package only because it touches package-private fields.
 */
public final class AgentBridge {
    private AgentBridge() {}

    /** Installs the agent's backend; {@code onCategoryCreated} hears of every category made from now on. */
    public static void install(TrackEventBackend backend, Consumer<Category> onCategoryCreated) {
        TrackEvent.categoryListener = onCategoryCreated::accept;
        TrackEvent.backend = backend;
    }

    /**
     * The version of what this class and the SPI offer the agent. An agent binds an application's own
     * copy of the API only when that copy's version equals the agent's: a copy of another version may
     * lack what the agent calls.
     */
    public static final int VERSION = 1;

    /** Sessions a category's mask can name: one bit each. */
    public static final int MAX_SESSIONS = 4;

    /**
     * Which sessions (a bit per slot) record {@code category}. The mask is stored before the enabled
     * flag: a thread that sees the category enabled (the API's one volatile read) then reads a mask at
     * least as new.
     */
    public static void setSessionMask(Category category, int mask) {
        category.sessionMask = mask;
        category.enabled = mask != 0;
    }

    public static int sessionMask(Category category) {
        return category.sessionMask;
    }

    /** The generation of {@code session} (in session slot {@code slot}) that {@code track} was last described in, or -1. */
    public static int asyncTrackDescribedIn(AsyncTrack track, int slot, Object session) {
        return track.describedSession[slot] == session ? track.describedGeneration[slot] : -1;
    }

    public static void asyncTrackDescribed(AsyncTrack track, int slot, Object session, int generation) {
        track.describedGeneration[slot] = generation;
        track.describedSession[slot] = session;
    }

    /** The agent's copy of {@code category} (see {@link Category#twin}), or null before the agent made one. */
    public static Object twin(Category category) {
        return category.twin;
    }

    public static void twin(Category category, Object twin) {
        category.twin = twin;
    }

    /** The agent's copy of {@code track}, or null before the agent made one. */
    public static Object twin(AsyncTrack track) {
        return track.twin;
    }

    public static void twin(AsyncTrack track, Object twin) {
        track.twin = twin;
    }

    /** The track another copy of the API calls {@code name} with {@code uuid}, for the agent to write its events on. */
    public static AsyncTrack asyncTrack(String name, long uuid) {
        return AsyncTrack.withUuid(name, uuid);
    }

    public static Collection<Category> categories() {
        return Category.all();
    }
}
