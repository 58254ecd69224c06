package io.jtrace.agent.trackevent;

import io.jtrace.agent.tracks.DebugAnnotations;
import io.jtrace.api.spi.EventData;
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
            String name = data.argName(i);
            switch (data.argKind(i)) {
                case EventData.KIND_LONG -> DebugAnnotations.integer(p, name, data.argLong(i));
                case EventData.KIND_DOUBLE -> DebugAnnotations.real(p, name, data.argDouble(i));
                case EventData.KIND_BOOLEAN -> DebugAnnotations.bool(p, name, data.argLong(i) != 0);
                default -> DebugAnnotations.string(p, name, data.argString(i));
            }
        }
        if (data.droppedArgs() > 0) {
            DebugAnnotations.integer(p, DROPPED_ARGS, data.droppedArgs());
        }
        for (int i = 0; i < data.flowCount(); i++) {
            p.fixed64(data.flowTerminating(i) ? TrackEvent.TERMINATING_FLOW_IDS_FIELD_NUMBER : TrackEvent.FLOW_IDS_FIELD_NUMBER,
                    data.flowId(i));
        }
    }
}
