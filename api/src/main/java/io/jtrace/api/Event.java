package io.jtrace.api;

import io.jtrace.api.spi.EventData;

/**
 * An event being built: debug annotations, flows and a track, then one of {@link #begin}, {@link #end},
 * {@link #instant} or {@link #slice}, which writes it. Get one from {@link TrackEvent#event}; each
 * thread reuses its own, so building allocates nothing. A builder is taken from {@code TrackEvent.event}
 * until its event is written, so an event built while another is being built (an argument computed by
 * traced code) gets a builder of its own, up to {@link #MAX_NESTING} deep. Do not keep one: a builder
 * never written stays taken, and once all are taken the deepest is started over.
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

    /** Builders a thread can have taken at once. */
    public static final int MAX_NESTING = 4;

    static final Event DISABLED = new Event(false);

    private final boolean recording;
    /** Taken by {@link TrackEvent#event} until the event is written; the owning thread only. */
    private boolean taken;
    /** The thread's next builder, for an event built while this one is taken; made on first need. */
    private Event next;
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

    /** This thread's first builder not taken (this one, or one after it), taken and started over. */
    Event take(Category category) {
        Event e = this;
        for (int depth = 1; e.taken && depth < MAX_NESTING; depth++) {
            if (e.next == null) {
                e.next = new Event(true);
            }
            e = e.next;
        }
        e.taken = true;
        return e.reset(category);
    }

    private Event reset(Category category) {
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
            write(TYPE_BEGIN, name);
        }
    }

    private void write(int type, String name) {
        try {
            TrackEvent.backend.event(type, category, name, System.nanoTime(), this);
        } finally {
            taken = false;
        }
    }

    /** Ends the innermost open slice of the event's track (the thread's, or the one given with {@link #on}). */
    public void end() {
        if (recording) {
            write(TYPE_END, null);
        }
    }

    public void instant(String name) {
        if (recording) {
            write(TYPE_INSTANT, name);
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
        write(TYPE_BEGIN, name);
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
