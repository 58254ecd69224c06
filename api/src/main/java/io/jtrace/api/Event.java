package io.jtrace.api;

import io.jtrace.api.spi.EventData;

/**
 * An event being built: debug annotations, flows and a track, then one of {@link #begin}, {@link #end},
 * {@link #instant} or {@link #slice}, which writes it. Get one from {@link TrackEvent#event}; each
 * thread reuses its own, so building allocates nothing. Use it within one statement and do not keep it:
 * the next {@code TrackEvent.event} call on the thread starts it over.
 *
 * <pre>{@code
 * TrackEvent.event(DB).arg("table", table).arg("rows", rows).flow(requestFlow).begin("query");
 * }</pre>
 *
 * <p>While the category is disabled, {@code TrackEvent.event} returns an instance on which every call
 * does nothing.
 */
public final class Event implements EventData {
    /** Annotations an event can carry; more are dropped (and counted by the backend as dropped args). */
    public static final int MAX_ARGS = 8;
    /** Flows an event can take part in; more are dropped. */
    public static final int MAX_FLOWS = 4;

    static final Event DISABLED = new Event(false);

    private final boolean recording;
    private Category category;
    private int argCount;
    private int droppedArgs;
    private final String[] argNames = new String[MAX_ARGS];
    private final int[] argKinds = new int[MAX_ARGS];
    private final long[] argLongs = new long[MAX_ARGS];
    private final double[] argDoubles = new double[MAX_ARGS];
    private final String[] argStrings = new String[MAX_ARGS];
    private int flowCount;
    private final long[] flowIds = new long[MAX_FLOWS];
    private final boolean[] flowTerminating = new boolean[MAX_FLOWS];
    private AsyncTrack track;

    Event(boolean recording) {
        this.recording = recording;
    }

    Event reset(Category category) {
        this.category = category;
        for (int i = 0; i < argCount; i++) {
            argStrings[i] = null; // let go of the application's strings
        }
        argCount = 0;
        droppedArgs = 0;
        flowCount = 0;
        track = null;
        return this;
    }

    public Event arg(String name, long value) {
        return put(name, KIND_LONG, value, 0, null);
    }

    public Event arg(String name, double value) {
        return put(name, KIND_DOUBLE, 0, value, null);
    }

    public Event arg(String name, boolean value) {
        return put(name, KIND_BOOLEAN, value ? 1 : 0, 0, null);
    }

    public Event arg(String name, String value) {
        return put(name, KIND_STRING, 0, 0, value);
    }

    private Event put(String name, int kind, long l, double d, String s) {
        if (!recording) {
            return this;
        }
        if (argCount == MAX_ARGS) {
            droppedArgs++;
            return this;
        }
        argNames[argCount] = name;
        argKinds[argCount] = kind;
        argLongs[argCount] = l;
        argDoubles[argCount] = d;
        argStrings[argCount] = s;
        argCount++;
        return this;
    }

    /** This event is a step of flow {@code flowId} ({@link TrackEvent#newFlowId}): linked to its previous and next steps. */
    public Event flow(long flowId) {
        return addFlow(flowId, false);
    }

    /** This event is the last step of flow {@code flowId}. */
    public Event terminateFlow(long flowId) {
        return addFlow(flowId, true);
    }

    private Event addFlow(long flowId, boolean terminating) {
        if (recording && flowCount < MAX_FLOWS) {
            flowIds[flowCount] = flowId;
            flowTerminating[flowCount] = terminating;
            flowCount++;
        }
        return this;
    }

    /** Puts the event on {@code track} instead of the calling thread's track. */
    public Event on(AsyncTrack track) {
        if (recording) {
            this.track = track;
        }
        return this;
    }

    public void begin(String name) {
        if (recording) {
            TrackEvent.backend.event(TYPE_BEGIN, category, name, System.nanoTime(), this);
        }
    }

    /** Ends the innermost open slice of the event's track (the thread's, or the one given with {@link #on}). */
    public void end() {
        if (recording) {
            TrackEvent.backend.event(TYPE_END, category, null, System.nanoTime(), this);
        }
    }

    public void instant(String name) {
        if (recording) {
            TrackEvent.backend.event(TYPE_INSTANT, category, name, System.nanoTime(), this);
        }
    }

    /**
     * Begins a slice and returns a handle whose {@code close()} ends it on the same track (with no
     * annotations or flows of its own): use with try-with-resources.
     */
    public Slice slice(String name) {
        if (!recording) {
            return TrackEvent.NOOP_SLICE;
        }
        AsyncTrack on = track;
        Category c = category;
        TrackEvent.backend.event(TYPE_BEGIN, c, name, System.nanoTime(), this);
        return on == null ? c.closer : on.closer(c);
    }

    @Override
    public int argCount() {
        return argCount;
    }

    @Override
    public int droppedArgs() {
        return droppedArgs;
    }

    @Override
    public String argName(int i) {
        return argNames[i];
    }

    @Override
    public int argKind(int i) {
        return argKinds[i];
    }

    @Override
    public long argLong(int i) {
        return argLongs[i];
    }

    @Override
    public double argDouble(int i) {
        return argDoubles[i];
    }

    @Override
    public String argString(int i) {
        return argStrings[i];
    }

    @Override
    public int flowCount() {
        return flowCount;
    }

    @Override
    public long flowId(int i) {
        return flowIds[i];
    }

    @Override
    public boolean flowTerminating(int i) {
        return flowTerminating[i];
    }

    @Override
    public AsyncTrack track() {
        return track;
    }
}
