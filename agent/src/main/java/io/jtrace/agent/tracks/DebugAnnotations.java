package io.jtrace.agent.tracks;

import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;

/** Writes a track event's debug annotations (name and a typed value) into its open track_event message. */
public final class DebugAnnotations {
    private DebugAnnotations() {}

    public static void string(ProtoWriter p, String name, String value) {
        begin(p, name);
        p.string(DebugAnnotation.STRING_VALUE_FIELD_NUMBER, String.valueOf(value));
        p.endNested();
    }

    public static void integer(ProtoWriter p, String name, long value) {
        begin(p, name);
        p.varint(DebugAnnotation.INT_VALUE_FIELD_NUMBER, value);
        p.endNested();
    }

    public static void real(ProtoWriter p, String name, double value) {
        begin(p, name);
        p.doubleField(DebugAnnotation.DOUBLE_VALUE_FIELD_NUMBER, value);
        p.endNested();
    }

    public static void bool(ProtoWriter p, String name, boolean value) {
        begin(p, name);
        p.bool(DebugAnnotation.BOOL_VALUE_FIELD_NUMBER, value);
        p.endNested();
    }

    private static void begin(ProtoWriter p, String name) {
        p.beginNested(TrackEvent.DEBUG_ANNOTATIONS_FIELD_NUMBER);
        p.string(DebugAnnotation.NAME_FIELD_NUMBER, String.valueOf(name));
    }
}
