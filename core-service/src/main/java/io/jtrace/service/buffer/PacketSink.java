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

    /**
     * {@code count} whole packets already framed as a trace file frames them, in
     * {@code data[offset, offset + length)}: each is the Trace.packet tag, a varint size and the packet,
     * trusted fields included. A file copies them as they are; by default each goes to {@link #packet}.
     */
    default void framedPackets(byte[] data, int offset, int length, int count) {
        int pos = offset;
        int end = offset + length;
        while (pos < end) {
            long sizeAndLength = Varints.read(data, pos + 1, end);
            int body = pos + 1 + (int) (sizeAndLength >>> 32);
            int size = (int) sizeAndLength;
            packet(data, body, size, NO_TRAILER, 0);
            pos = body + size;
        }
    }

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
