package io.jtrace.jmx;

import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;

/**
 * The JMX notifications of {@code io.jtrace:type=Tracing} and their user data, a CompositeData any
 * client reads without jtrace's classes.
 */
public final class Notifications {
    public static final String SESSION_STARTED = "io.jtrace.session.started";
    public static final String SESSION_STOPPED = "io.jtrace.session.stopped";
    public static final String DATA_LOST = "io.jtrace.data.lost";

    private static final String[] ITEMS = {"session", "id", "state", "mode", "file", "bytesWritten", "chunksLost",
        "writerPacketLoss", "eventsLost", "newChunksLost", "newWriterPacketLoss", "newEventsLost", "error"};
    private static final String[] DESCRIPTIONS = {
        "the session's name", "the service's session id", "STARTED, STOPPING or STOPPED",
        "file (streamed) or ring (in memory)", "where the session's trace goes", "bytes in the file so far",
        "chunks lost so far: overwritten before being read, or discarded",
        "places so far where a writer dropped packets (shared memory full)",
        "track events lost so far, counted per event (-1 where unknown)",
        "chunks lost since the previous notification", "writer drops since the previous notification",
        "track events lost since the previous notification",
        "why the session ended badly, empty otherwise"};
    @SuppressWarnings("rawtypes")
    private static final OpenType[] TYPES = {SimpleType.STRING, SimpleType.LONG, SimpleType.STRING, SimpleType.STRING,
        SimpleType.STRING, SimpleType.LONG, SimpleType.LONG, SimpleType.LONG, SimpleType.LONG, SimpleType.LONG,
        SimpleType.LONG, SimpleType.LONG, SimpleType.STRING};
    static final CompositeType TYPE = type();

    private Notifications() {}

    private static CompositeType type() {
        try {
            return new CompositeType("io.jtrace.SessionEvent", "a tracing session's state when the event happened",
                    ITEMS, DESCRIPTIONS, TYPES);
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static CompositeData data(SessionInfo s, LossWatcher.Growth growth) {
        try {
            return new CompositeDataSupport(TYPE, ITEMS, new Object[] {s.name(), s.id(), s.state(), s.mode(), s.file(),
                s.bytesWritten(), s.chunksLost(), s.writerPacketLoss(), s.eventsLost(), growth.chunksLost(),
                growth.writerPacketLoss(), growth.eventsLost(), s.error()});
        } catch (OpenDataException e) {
            throw new IllegalStateException(e);
        }
    }
}
