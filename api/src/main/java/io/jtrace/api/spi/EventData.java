package io.jtrace.api.spi;

import io.jtrace.api.AsyncTrack;

/** What an event built with {@code TrackEvent.event(...)} carries, as the backend reads it. Not for applications. */
public interface EventData {
    int TYPE_BEGIN = 1;
    int TYPE_END = 2;
    int TYPE_INSTANT = 3;

    int KIND_LONG = 1;
    int KIND_DOUBLE = 2;
    int KIND_BOOLEAN = 3;
    int KIND_STRING = 4;

    int argCount();

    /** Annotations given beyond the event's capacity, not recorded. */
    int droppedArgs();

    String argName(int i);

    int argKind(int i);

    /** The value of a KIND_LONG or KIND_BOOLEAN (1 or 0) annotation. */
    long argLong(int i);

    double argDouble(int i);

    String argString(int i);

    int flowCount();

    long flowId(int i);

    boolean flowTerminating(int i);

    /** The async track the event goes on, or null for the calling thread's track. */
    AsyncTrack track();
}
