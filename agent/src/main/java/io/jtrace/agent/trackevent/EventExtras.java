package io.jtrace.agent.trackevent;

import io.jtrace.api.spi.EventData;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;

/**
 * Writes what an event built with {@code TrackEvent.event(...)} adds to a track event: its debug
 * annotations and its flow ids (Perfetto links events that share a flow id, in time order; a
 * terminating id ends the flow there). Annotations beyond the event's capacity are reported as one more,
 * {@link #DROPPED_ARGS}, so the trace says they were given.
 */
final class EventExtras {
    static final String DROPPED_ARGS = "jtrace.dropped_args";

    private EventExtras() {}

    /** Into an open track_event message. */
    static void write(ProtoWriter p, EventData data) {
        for (int i = 0; i < data.argCount(); i++) {
            p.beginNested(TrackEvent.DEBUG_ANNOTATIONS_FIELD_NUMBER);
            p.string(DebugAnnotation.NAME_FIELD_NUMBER, String.valueOf(data.argName(i)));
            switch (data.argKind(i)) {
                case EventData.KIND_LONG:
                    p.varint(DebugAnnotation.INT_VALUE_FIELD_NUMBER, data.argLong(i));
                    break;
                case EventData.KIND_DOUBLE:
                    p.doubleField(DebugAnnotation.DOUBLE_VALUE_FIELD_NUMBER, data.argDouble(i));
                    break;
                case EventData.KIND_BOOLEAN:
                    p.bool(DebugAnnotation.BOOL_VALUE_FIELD_NUMBER, data.argLong(i) != 0);
                    break;
                default:
                    p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, String.valueOf(data.argString(i)));
                    break;
            }
            p.endNested();
        }
        if (data.droppedArgs() > 0) {
            p.beginNested(TrackEvent.DEBUG_ANNOTATIONS_FIELD_NUMBER);
            p.string(DebugAnnotation.NAME_FIELD_NUMBER, DROPPED_ARGS);
            p.varint(DebugAnnotation.INT_VALUE_FIELD_NUMBER, data.droppedArgs());
            p.endNested();
        }
        for (int i = 0; i < data.flowCount(); i++) {
            p.fixed64(data.flowTerminating(i) ? TrackEvent.TERMINATING_FLOW_IDS_FIELD_NUMBER : TrackEvent.FLOW_IDS_FIELD_NUMBER,
                    data.flowId(i));
        }
    }
}
