package io.jtrace.api;

import io.jtrace.api.spi.TrackEventBackend;
import java.util.Collection;
import java.util.function.Consumer;

/**
 * How the tracing agent reaches into the API's state: install its backend, flip categories. Not for
 * applications, which cannot use it: only code of the agent's packages may {@link #open} it, and
 * everything that changes the API's state is a method of the bridge that open returns. The
 * static methods only read. It lives in this package because it touches package-private fields.
 */
public final class AgentBridge {
    private static final String AGENT_PACKAGES = "io.jtrace.agent.";
    private static final AgentBridge INSTANCE = new AgentBridge();

    private AgentBridge() {}

    /**
     * The bridge, for the agent: everything that changes the API's state is one of its methods.
     *
     * @throws IllegalCallerException when called from outside the agent's packages
     */
    public static AgentBridge open() {
        Class<?> caller = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass();
        if (!caller.getName().startsWith(AGENT_PACKAGES)) {
            throw new IllegalCallerException("only the jtrace agent may open the API's bridge, not " + caller.getName());
        }
        return INSTANCE;
    }

    /** Installs the agent's backend; {@code onCategoryCreated} hears of every category made from now on. */
    public void install(TrackEventBackend backend, Consumer<Category> onCategoryCreated) {
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
    public void setSessionMask(Category category, int mask) {
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

    public void asyncTrackDescribed(AsyncTrack track, int slot, Object session, int generation) {
        track.describedGeneration[slot] = generation;
        track.describedSession[slot] = session;
    }

    /** The agent's copy of {@code category} (see {@link Category#twin}), or null before the agent made one. */
    public static Object twin(Category category) {
        return category.twin;
    }

    public void twin(Category category, Object twin) {
        category.twin = twin;
    }

    /** The agent's copy of {@code track}, or null before the agent made one. */
    public static Object twin(AsyncTrack track) {
        return track.twin;
    }

    public void twin(AsyncTrack track, Object twin) {
        track.twin = twin;
    }

    /** The track another copy of the API calls {@code name} with {@code uuid}, for the agent to write its events on. */
    public AsyncTrack asyncTrack(String name, long uuid) {
        return AsyncTrack.withUuid(name, uuid);
    }

    public static Collection<Category> categories() {
        return Category.all();
    }
}
