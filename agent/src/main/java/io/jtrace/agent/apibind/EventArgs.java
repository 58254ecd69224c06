package io.jtrace.agent.apibind;

import io.jtrace.api.AsyncTrack;
import io.jtrace.api.Event;
import io.jtrace.api.spi.EventData;

/**
 * What an event built in another copy of the API carries, copied by its adapter into the agent's own
 * {@link EventData}: one per thread, reused. Its setters name no API class (see {@link Twins}).
 */
public final class EventArgs implements EventData {
    private int argCount;
    private int droppedArgs;
    private final String[] argNames = new String[Event.MAX_ARGS];
    private final int[] argKinds = new int[Event.MAX_ARGS];
    private final long[] argLongs = new long[Event.MAX_ARGS];
    private final double[] argDoubles = new double[Event.MAX_ARGS];
    private final String[] argStrings = new String[Event.MAX_ARGS];
    private int flowCount;
    private final long[] flowIds = new long[Event.MAX_FLOWS];
    private final boolean[] flowTerminating = new boolean[Event.MAX_FLOWS];
    private AsyncTrack track;

    /** Starts a new event: {@code track} is the twin of its async track, or null for its thread's track. */
    public void reset(int droppedArgs, Object track) {
        this.droppedArgs = droppedArgs;
        this.track = (AsyncTrack) track;
        for (int i = 0; i < argCount; i++) {
            argStrings[i] = null; // no reference kept past the event
        }
        argCount = 0;
        flowCount = 0;
    }

    /** An annotation of {@code kind} (an {@link EventData} KIND_): its long (or 0/1), double or string. */
    public void arg(String name, int kind, long longValue, double doubleValue, String stringValue) {
        if (argCount == argNames.length) {
            droppedArgs++;
            return;
        }
        argNames[argCount] = name;
        argKinds[argCount] = kind;
        argLongs[argCount] = longValue;
        argDoubles[argCount] = doubleValue;
        argStrings[argCount] = stringValue;
        argCount++;
    }

    public void flow(long id, boolean terminating) {
        if (flowCount < flowIds.length) {
            flowIds[flowCount] = id;
            flowTerminating[flowCount] = terminating;
            flowCount++;
        }
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
