package io.jtrace.service.buffer;

/** Receives whole trace packets read out of a buffer, each already carrying its trusted fields. */
@FunctionalInterface
public interface PacketSink {
    /** {@code packet[offset, offset+length)} is one serialized TracePacket; the array may be reused after return. */
    void packet(byte[] packet, int offset, int length);
}
