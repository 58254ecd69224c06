package io.jtrace.shm.proto;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes protobuf fields straight into a region of a {@link ByteBuffer} (a chunk of the shared memory
 * buffer), allocating nothing.
 *
 * <p>Nested messages get a 4-byte redundant-varint size field, reserved when the message begins and
 * filled in when it ends, so no message is built twice. The outermost level (level 0) is the packet's
 * frame in a chunk.
 *
 * <p>A packet may span chunks: when a write does not fit, the {@link SpaceProvider} ends the current
 * fragment and {@link #continueIn continues} in a new chunk, where level 0 gets a new frame. Message
 * sizes are measured on a virtual stream position ({@link #streamPosition()}) that runs on across
 * fragments without counting their frames; a message whose size field was left behind in an earlier
 * fragment gets its size through {@link SpaceProvider#patchSize}.
 *
 * <p>Not thread-safe: one writer per thread, as with everything on the producer's write path.
 */
public final class ProtoWriter {
    /** Deepest nesting of messages (the packet's frame counts as one level). */
    public static final int MAX_NESTING = 32;

    private final SpaceProvider spaceProvider;
    /** Absolute offset of each open level's size field (valid while in the level's own fragment). */
    private final int[] sizeFieldOffsets = new int[MAX_NESTING];
    /** Stream position where each open level's content starts. */
    private final int[] contentStarts = new int[MAX_NESTING];
    /** Fragment number in which each open level's size field was written. */
    private final int[] fragmentOf = new int[MAX_NESTING];
    private ByteBuffer buf;
    private int pos;
    private int limit;
    private int depth;
    /** Current fragment of the packet, counted from 0. */
    private int fragment;
    /** Stream position minus buffer position: grows by the skipped bytes at every fragment change. */
    private int streamDelta;

    public ProtoWriter(SpaceProvider spaceProvider) {
        this.spaceProvider = spaceProvider;
    }

    /** Points the writer at {@code [pos, limit)} of {@code buf}, which must be little-endian, with nothing open. */
    public void reset(ByteBuffer buf, int pos, int limit) {
        if (buf.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException("ProtoWriter needs a little-endian buffer");
        }
        this.buf = buf;
        this.pos = pos;
        this.limit = limit;
        this.depth = 0;
        this.fragment = 0;
        this.streamDelta = 0;
    }

    /**
     * Ends the current fragment (its frame gets the fragment's size) and continues the packet at
     * {@code framePos} of {@code newBuf}, where a new 4-byte frame is reserved; writing goes on after it
     * up to {@code newLimit}. Open nested messages stay open: their sizes keep counting.
     */
    public void continueIn(ByteBuffer newBuf, int framePos, int newLimit) {
        if (depth == 0) {
            throw new IllegalStateException("no packet is open");
        }
        buf.putInt(sizeFieldOffsets[0], WireFormat.redundantVarint(pos - sizeFieldOffsets[0] - WireFormat.RESERVED_SIZE_BYTES));
        int newPos = framePos + WireFormat.RESERVED_SIZE_BYTES;
        streamDelta += pos - newPos;
        fragment++;
        buf = newBuf;
        pos = newPos;
        limit = newLimit;
        sizeFieldOffsets[0] = framePos;
        fragmentOf[0] = fragment;
        contentStarts[0] = newPos + streamDelta;
    }

    /**
     * Sends the rest of the current packet into {@code scratch}, to be thrown away. Every open size
     * field now points at offset 0 of the scratch buffer, where closing it writes harmless garbage, and
     * no more patches are asked for.
     */
    public void discardInto(ByteBuffer scratch) {
        for (int i = 0; i < depth; i++) {
            sizeFieldOffsets[i] = 0;
            fragmentOf[i] = fragment;
        }
        buf = scratch;
        pos = WireFormat.RESERVED_SIZE_BYTES;
        limit = scratch.capacity();
    }

    /** Moves the position forward over bytes written directly into the buffer; nothing may be open. */
    public void skipTo(int newPos) {
        if (depth != 0 || newPos > limit) {
            throw new IllegalStateException("skipTo(" + newPos + ") at depth " + depth + ", limit " + limit);
        }
        pos = newPos;
    }

    public ByteBuffer buffer() {
        return buf;
    }

    public int position() {
        return pos;
    }

    public int limit() {
        return limit;
    }

    public int depth() {
        return depth;
    }

    /** The fragment the packet is in (0 until it first spans a chunk). */
    public int fragment() {
        return fragment;
    }

    /** Offset of the size field of the message open at {@code level} (0 = the packet's frame). */
    public int sizeFieldOffset(int level) {
        return sizeFieldOffsets[level];
    }

    /** Fragment in which the size field of the message open at {@code level} was written. */
    public int fragmentOf(int level) {
        return fragmentOf[level];
    }

    /** Bytes of packet content written so far, across fragments, frames not counted. */
    public int streamPosition() {
        return pos + streamDelta;
    }

    /** Opens a size-prefixed region without a tag: the framing of a packet in a chunk. */
    public void beginFrame() {
        ensure(WireFormat.RESERVED_SIZE_BYTES);
        push();
    }

    /** Opens a nested message field; close it with {@link #endNested()}. */
    public void beginNested(int field) {
        long tag = tag(field, WireFormat.LENGTH_DELIMITED);
        ensure(WireFormat.varintSize(tag) + WireFormat.RESERVED_SIZE_BYTES);
        rawVarint(tag);
        push();
    }

    /** Closes the innermost open message (or frame) and writes its size, here or as a patch. Returns the size. */
    public int endNested() {
        int level = --depth;
        int size = pos + streamDelta - contentStarts[level];
        if (fragmentOf[level] == fragment) {
            buf.putInt(sizeFieldOffsets[level], WireFormat.redundantVarint(size));
        } else {
            spaceProvider.patchSize(this, level, size);
        }
        return size;
    }

    public void varint(int field, long value) {
        long tag = tag(field, WireFormat.VARINT);
        ensure(WireFormat.varintSize(tag) + WireFormat.varintSize(value));
        rawVarint(tag);
        rawVarint(value);
    }

    public void sint64(int field, long value) {
        varint(field, (value << 1) ^ (value >> 63));
    }

    public void bool(int field, boolean value) {
        varint(field, value ? 1 : 0);
    }

    public void fixed64(int field, long value) {
        long tag = tag(field, WireFormat.FIXED64);
        ensure(WireFormat.varintSize(tag) + 8);
        rawVarint(tag);
        buf.putLong(pos, value);
        pos += 8;
    }

    public void fixed32(int field, int value) {
        long tag = tag(field, WireFormat.FIXED32);
        ensure(WireFormat.varintSize(tag) + 4);
        rawVarint(tag);
        buf.putInt(pos, value);
        pos += 4;
    }

    public void doubleField(int field, double value) {
        fixed64(field, Double.doubleToRawLongBits(value));
    }

    /** A string field, UTF-8 encoded in place (unpaired surrogates become '?', as String.getBytes does). */
    public void string(int field, CharSequence value) {
        long tag = tag(field, WireFormat.LENGTH_DELIMITED);
        int length = WireFormat.utf8Length(value);
        int header = WireFormat.varintSize(tag) + WireFormat.varintSize(length);
        if (limit - pos >= header + length) {
            rawVarint(tag);
            rawVarint(length);
            writeUtf8(value, 0, value.length());
            return;
        }
        ensure(header);
        rawVarint(tag);
        rawVarint(length);
        writeUtf8InPieces(value);
    }

    public void bytes(int field, byte[] value, int offset, int length) {
        long tag = tag(field, WireFormat.LENGTH_DELIMITED);
        ensure(WireFormat.varintSize(tag) + WireFormat.varintSize(length));
        rawVarint(tag);
        rawVarint(length);
        raw(value, offset, length);
    }

    /** Appends already-encoded bytes verbatim, across fragments if need be. */
    public void raw(byte[] encoded, int offset, int length) {
        while (length > 0) {
            if (pos == limit) {
                spaceProvider.makeRoom(this, 1);
            }
            int n = Math.min(length, limit - pos);
            buf.put(pos, encoded, offset, n);
            pos += n;
            offset += n;
            length -= n;
        }
    }

    private static long tag(int field, int wireType) {
        // Unsigned: field numbers up to 2^29-1 shift into bit 31.
        return Integer.toUnsignedLong(WireFormat.tag(field, wireType));
    }

    private void push() {
        if (depth == MAX_NESTING) {
            throw new IllegalStateException("proto messages nested deeper than " + MAX_NESTING);
        }
        sizeFieldOffsets[depth] = pos;
        fragmentOf[depth] = fragment;
        pos += WireFormat.RESERVED_SIZE_BYTES;
        contentStarts[depth] = pos + streamDelta;
        depth++;
    }

    private void ensure(int needed) {
        if (limit - pos < needed) {
            spaceProvider.makeRoom(this, needed);
        }
    }

    private void rawVarint(long value) {
        while ((value & ~0x7FL) != 0) {
            buf.put(pos++, (byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        buf.put(pos++, (byte) value);
    }

    /** Slow path for strings longer than the room left: a few characters at a time, continuing as needed. */
    private void writeUtf8InPieces(CharSequence s) {
        int n = s.length();
        int i = 0;
        while (i < n) {
            if (limit - pos < 4) {
                spaceProvider.makeRoom(this, 4);
            }
            // Characters that surely fit (at most 3 bytes each, or 4 per surrogate pair).
            int end = Math.min(n, i + (limit - pos) / 4);
            if (end > i && end < n && Character.isHighSurrogate(s.charAt(end - 1))) {
                end--;
            }
            if (end == i) {
                end = i + (Character.isHighSurrogate(s.charAt(i)) && i + 1 < n ? 2 : 1);
            }
            writeUtf8(s, i, end);
            i = end;
        }
    }

    private void writeUtf8(CharSequence s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buf.put(pos++, (byte) c);
            } else if (c < 0x800) {
                buf.put(pos++, (byte) (0xC0 | (c >>> 6)));
                buf.put(pos++, (byte) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                buf.put(pos++, (byte) (0xF0 | (cp >>> 18)));
                buf.put(pos++, (byte) (0x80 | ((cp >>> 12) & 0x3F)));
                buf.put(pos++, (byte) (0x80 | ((cp >>> 6) & 0x3F)));
                buf.put(pos++, (byte) (0x80 | (cp & 0x3F)));
            } else if (Character.isSurrogate(c)) {
                buf.put(pos++, (byte) '?');
            } else {
                buf.put(pos++, (byte) (0xE0 | (c >>> 12)));
                buf.put(pos++, (byte) (0x80 | ((c >>> 6) & 0x3F)));
                buf.put(pos++, (byte) (0x80 | (c & 0x3F)));
            }
        }
    }
}
