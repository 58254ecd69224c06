package io.jtrace.jfr.live;

import io.jtrace.jfr.format.PacketOut;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;

/** A live session's sequence: packets go through a {@link TraceWriter} into the shared memory buffer. */
final class TraceWriterOut implements PacketOut {
    final TraceWriter writer;

    TraceWriterOut(TraceWriter writer) {
        this.writer = writer;
    }

    @Override
    public ProtoWriter beginPacket() {
        return writer.beginPacket();
    }

    @Override
    public void endPacket() {
        writer.endPacket();
    }
}
