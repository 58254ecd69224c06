package io.jtrace.service.buffer;

/**
 * Receives whole trace packets read out of a buffer, each in two parts: the producer's bytes and the
 * service's trailer of trusted fields, which together are one serialized TracePacket. Two parts, so a
 * sink that frames packets (a trace file, a ReadBuffers reply) copies each byte once, straight from the
 * buffer's ring; {@link #joined} serves callers that want each packet in one piece.
 */
@FunctionalInterface
public interface PacketSink {
    /** No trailer: for packets that are whole already (the service's own). */
    byte[] NO_TRAILER = new byte[0];

    /**
     * One packet: {@code body[bodyOffset, bodyOffset + bodyLength)} followed by
     * {@code trailer[0, trailerLength)}. Both arrays may be reused after return.
     */
    void packet(byte[] body, int bodyOffset, int bodyLength, byte[] trailer, int trailerLength);

    /** A sink that hands each packet to {@code whole} in one array, joined in scratch space reused between packets. */
    static PacketSink joined(WholePacketSink whole) {
        return new PacketSink() {
            private byte[] scratch = new byte[4096];

            @Override
            public void packet(byte[] body, int bodyOffset, int bodyLength, byte[] trailer, int trailerLength) {
                if (trailerLength == 0) {
                    whole.packet(body, bodyOffset, bodyLength);
                    return;
                }
                int length = bodyLength + trailerLength;
                if (scratch.length < length) {
                    scratch = new byte[Math.max(length, scratch.length * 2)];
                }
                System.arraycopy(body, bodyOffset, scratch, 0, bodyLength);
                System.arraycopy(trailer, 0, scratch, bodyLength, trailerLength);
                whole.packet(scratch, 0, length);
            }
        };
    }

    /** Receives each packet in one piece; see {@link #joined}. */
    @FunctionalInterface
    interface WholePacketSink {
        /** {@code packet[offset, offset + length)} is one serialized TracePacket; the array may be reused after return. */
        void packet(byte[] packet, int offset, int length);
    }
}
