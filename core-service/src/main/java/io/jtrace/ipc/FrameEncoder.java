package io.jtrace.ipc;

import com.google.protobuf.CodedOutputStream;
import io.jtrace.protos.IPCFrame;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/** Writes an {@link IPCFrame} as it travels on the socket: 4-byte little-endian length, then the frame. */
public final class FrameEncoder {
    private FrameEncoder() {}

    /**
     * The frame's bytes, ready to write (position 0, limit = length).
     *
     * @throws FrameTooLargeException when the frame's payload is above {@link FrameDecoder#MAX_PAYLOAD}:
     *     the other side would close the connection on it
     */
    public static ByteBuffer encode(IPCFrame frame) throws FrameTooLargeException {
        int payload = frame.getSerializedSize();
        if (payload > FrameDecoder.MAX_PAYLOAD) {
            throw new FrameTooLargeException(payload);
        }
        byte[] bytes = new byte[FrameDecoder.HEADER_SIZE + payload];
        bytes[0] = (byte) payload;
        bytes[1] = (byte) (payload >>> 8);
        bytes[2] = (byte) (payload >>> 16);
        bytes[3] = (byte) (payload >>> 24);
        CodedOutputStream out = CodedOutputStream.newInstance(bytes, FrameDecoder.HEADER_SIZE, payload);
        try {
            frame.writeTo(out);
        } catch (IOException e) {
            // Writing into an array of exactly the serialized size cannot run out of space.
            throw new UncheckedIOException("frame of " + payload + " bytes did not fit its own size", e);
        }
        out.checkNoSpaceLeft();
        return ByteBuffer.wrap(bytes);
    }

    /** A frame whose payload is above {@link FrameDecoder#MAX_PAYLOAD}. */
    public static final class FrameTooLargeException extends Exception {
        FrameTooLargeException(int payloadBytes) {
            super("frame of " + payloadBytes + " bytes is over the IPC limit of " + FrameDecoder.MAX_PAYLOAD + " bytes");
        }
    }
}
