package io.jtrace.ipc;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.IPCFrame;
import java.nio.ByteBuffer;

/**
 * Cuts a byte stream into IPC frames: a 4-byte little-endian payload length, then that many bytes of
 * {@link IPCFrame}. Incremental: bytes may arrive split anywhere. Not thread-safe: one reader owns it.
 *
 * <p>The bytes are read straight into the decoder's own array ({@link #receiveBuffer()}, then
 * {@link #decode}), so a read costs no copy; the array starts small and grows only while a large frame is
 * being received, up to {@link #MAX_PAYLOAD} plus the header, and shrinks back once that frame is done.
 *
 * <p>A frame of length 0 or whose bytes are not an {@code IPCFrame} is dropped and reported as malformed:
 * the length still says where the next frame starts, so the stream goes on. A length above
 * {@link #MAX_PAYLOAD} is not trusted at all (the peer may be writing anything): decoding stops for good
 * and the owner must close the connection.
 */
public final class FrameDecoder {
    public static final int HEADER_SIZE = 4;
    /** The largest payload a frame may have (Perfetto's IPC buffer size). */
    public static final int MAX_PAYLOAD = 128 * 1024;
    private static final int INITIAL_CAPACITY = 4096;

    /** Where decoded frames go; called on the decoding thread, in stream order. */
    public interface Sink {
        void frame(IPCFrame frame);

        /** A frame was dropped: {@code reason} says why. */
        void malformed(String reason);
    }

    private byte[] array = new byte[INITIAL_CAPACITY];
    /** Always wraps {@link #array}; reused so a read allocates nothing. */
    private ByteBuffer view = ByteBuffer.wrap(array);
    /** Bytes received and not yet decoded, at the start of {@link #array}. */
    private int size;
    private long oversizeLength = -1;

    /**
     * Where the next bytes go: a buffer over the decoder's array, positioned after the bytes already
     * held, with at least one byte of room. Fill it, then call {@link #decode}.
     */
    public ByteBuffer receiveBuffer() {
        view.limit(array.length).position(size);
        return view;
    }

    /**
     * Decodes every complete frame received so far (the bytes up to the position of the buffer
     * {@link #receiveBuffer()} returned) and keeps the incomplete rest for the next call.
     *
     * @return false when a frame announced a payload above {@link #MAX_PAYLOAD}: the stream cannot be
     *     trusted any more and the connection must be closed; every later call returns false too
     */
    public boolean decode(Sink sink) {
        if (oversizeLength >= 0) {
            return false;
        }
        size = view.position();
        int consumed = 0;
        int needed = HEADER_SIZE;
        while (size - consumed >= HEADER_SIZE) {
            long length = Integer.toUnsignedLong(readLittleEndianInt(consumed));
            if (length > MAX_PAYLOAD) {
                oversizeLength = length;
                size = 0;
                return false;
            }
            int frameEnd = consumed + HEADER_SIZE + (int) length;
            if (frameEnd > size) {
                needed = HEADER_SIZE + (int) length;
                break;
            }
            decodeOne(consumed + HEADER_SIZE, (int) length, sink);
            consumed = frameEnd;
        }
        compact(consumed, needed);
        return true;
    }

    /**
     * Copies {@code bytes} in (as much as fits each time) and decodes, until they are all consumed or a
     * frame is oversize. For callers that already hold the bytes elsewhere, e.g. a test feeding a stream.
     *
     * @return as {@link #decode}
     */
    public boolean feed(ByteBuffer bytes, Sink sink) {
        while (bytes.hasRemaining()) {
            ByteBuffer target = receiveBuffer();
            int n = Math.min(target.remaining(), bytes.remaining());
            target.put(target.position(), bytes, bytes.position(), n);
            target.position(target.position() + n);
            bytes.position(bytes.position() + n);
            if (!decode(sink)) {
                return false;
            }
        }
        return true;
    }

    /** The length an oversize frame announced, or -1 while the stream is fine. */
    public long oversizeLength() {
        return oversizeLength;
    }

    /** Bytes of an incomplete frame held back; 0 at a frame boundary. */
    public int bufferedBytes() {
        return size; // 0 once a frame was oversize: decode dropped everything held.
    }

    private void decodeOne(int offset, int length, Sink sink) {
        if (length == 0) {
            sink.malformed("empty frame (length 0)");
            return;
        }
        IPCFrame frame;
        try {
            frame = IPCFrame.parser().parseFrom(array, offset, length);
        } catch (InvalidProtocolBufferException e) {
            sink.malformed("frame of " + length + " bytes is not an IPCFrame: " + e.getMessage());
            return;
        }
        sink.frame(frame);
    }

    private int readLittleEndianInt(int offset) {
        return (array[offset] & 0xff)
                | (array[offset + 1] & 0xff) << 8
                | (array[offset + 2] & 0xff) << 16
                | (array[offset + 3] & 0xff) << 24;
    }

    /**
     * Moves the undecoded bytes (from {@code consumed}) to the array's start, in an array of at least
     * {@code needed} bytes: the whole incomplete frame, or a header. {@code needed} is always more than
     * the bytes kept, so the next read has room. After a large frame the array shrinks back to its
     * initial size rather than keeping 128 KiB per connection.
     */
    private void compact(int consumed, int needed) {
        int rest = size - consumed;
        if (array.length < needed || (array.length > INITIAL_CAPACITY && needed <= INITIAL_CAPACITY)) {
            byte[] resized = new byte[Math.max(INITIAL_CAPACITY, needed)];
            System.arraycopy(array, consumed, resized, 0, rest);
            array = resized;
            view = ByteBuffer.wrap(array);
        } else if (consumed > 0 && rest > 0) {
            System.arraycopy(array, consumed, array, 0, rest);
        }
        size = rest;
        view.limit(array.length).position(size);
    }
}
