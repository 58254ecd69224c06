package io.jtrace.jfr.format;

import io.jtrace.shm.proto.ProtoWriter;

/**
 * Where one sequence's packets go: a {@link io.jtrace.shm.writer.TraceWriter} in a live session, a
 * file when converting. One packet is open at a time.
 */
public interface PacketOut {
    ProtoWriter beginPacket();

    void endPacket();
}
