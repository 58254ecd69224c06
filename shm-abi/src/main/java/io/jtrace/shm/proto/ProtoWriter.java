package io.jtrace.shm.proto;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes protobuf fields straight into a region of a {@link ByteBuffer} (a chunk of the shared memory
 * buffer), allocating nothing.
 *
 * <p>Nested messages get a 4-byte redundant-varint size field, reserved when the message begins and
 * filled in when it ends, so no message needs to be built twice. When a write does not fit before the
 * limit the writer asks its {@link SpaceProvider}, which may move the unfinished bytes elsewhere; all
 * open size-field offsets move with them.
 *
 * <p>Not thread-safe: one writer per thread, as with everything on the producer's write path.
 */
public final class ProtoWriter {
    /** Deepest nesting of messages (the packet itself counts as one level). */
    public static final int MAX_NESTING = 32;

    private final SpaceProvider spaceProvider;
    private final int[] sizeFieldOffsets = new int[MAX_NESTING];
    private ByteBuffer buf;
    private int pos;
    private int limit;
    private int depth;

    public ProtoWriter(SpaceProvider spaceProvider) {
        this.spaceProvider = spaceProvider;
    }

    /** Points the writer at {@code [pos, limit)} of {@code buf}, which must be little-endian. */
    public void reset(ByteBuffer buf, int pos, int limit) {
        if (buf.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException("ProtoWriter needs a little-endian buffer");
        }
        this.buf = buf;
        this.pos = pos;
        this.limit = limit;
        this.depth = 0;
    }

    /**
     * Moves the writer to {@code [newPos, newLimit)} of {@code newBuf}, where the provider has already
     * copied the bytes {@code [fromOffset, position())}; open size-field offsets shift by the same
     * distance as {@code fromOffset}.
     */
    public void moveTo(ByteBuffer newBuf, int fromOffset, int newFromOffset, int newLimit) {
        int delta = newFromOffset - fromOffset;
        for (int i = 0; i < depth; i++) {
            sizeFieldOffsets[i] += delta;
        }
        this.buf = newBuf;
        this.pos += delta;
        this.limit = newLimit;
    }

    /**
     * Sends the rest of the current packet into {@code scratch}, to be thrown away: every open size
     * field now points at offset 0 of the scratch buffer, where closing it writes harmless garbage.
     */
    public void discardInto(ByteBuffer scratch) {
        for (int i = 0; i < depth; i++) {
            sizeFieldOffsets[i] = 0;
        }
        this.buf = scratch;
        this.pos = WireFormat.RESERVED_SIZE_BYTES;
        this.limit = scratch.capacity();
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

    /** Offset of the size field of the message opened at nesting level {@code level} (0 = outermost). */
    public int sizeFieldOffset(int level) {
        return sizeFieldOffsets[level];
    }

    /** Opens a size-prefixed region without a tag: the framing of a packet in a chunk. */
    public void beginFrame() {
        ensure(WireFormat.RESERVED_SIZE_BYTES);
        push();
    }

    /** Opens a nested message field; close it with {@link #endNested()}. */
    public void beginNested(int field) {
        int tag = WireFormat.tag(field, WireFormat.LENGTH_DELIMITED);
        ensure(WireFormat.varintSize(Integer.toUnsignedLong(tag)) + WireFormat.RESERVED_SIZE_BYTES);
        rawVarint(Integer.toUnsignedLong(tag));
        push();
    }

    /** Closes the innermost open message (or frame) and writes its size. Returns that size. */
    public int endNested() {
        int sizeOffset = sizeFieldOffsets[--depth];
        int size = pos - sizeOffset - WireFormat.RESERVED_SIZE_BYTES;
        buf.putInt(sizeOffset, WireFormat.redundantVarint(size));
        return size;
    }

    public void varint(int field, long value) {
        int tag = WireFormat.tag(field, WireFormat.VARINT);
        ensure(WireFormat.varintSize(Integer.toUnsignedLong(tag)) + WireFormat.varintSize(value));
        rawVarint(Integer.toUnsignedLong(tag));
        rawVarint(value);
    }

    public void sint64(int field, long value) {
        varint(field, (value << 1) ^ (value >> 63));
    }

    public void bool(int field, boolean value) {
        varint(field, value ? 1 : 0);
    }

    public void fixed64(int field, long value) {
        int tag = WireFormat.tag(field, WireFormat.FIXED64);
        ensure(WireFormat.varintSize(Integer.toUnsignedLong(tag)) + 8);
        rawVarint(Integer.toUnsignedLong(tag));
        buf.putLong(pos, value);
        pos += 8;
    }

    public void fixed32(int field, int value) {
        int tag = WireFormat.tag(field, WireFormat.FIXED32);
        ensure(WireFormat.varintSize(Integer.toUnsignedLong(tag)) + 4);
        rawVarint(Integer.toUnsignedLong(tag));
        buf.putInt(pos, value);
        pos += 4;
    }

    public void doubleField(int field, double value) {
        fixed64(field, Double.doubleToRawLongBits(value));
    }

    /** A string field, UTF-8 encoded in place (unpaired surrogates become '?', as String.getBytes does). */
    public void string(int field, CharSequence value) {
        int tag = WireFormat.tag(field, WireFormat.LENGTH_DELIMITED);
        int length = WireFormat.utf8Length(value);
        ensure(WireFormat.varintSize(Integer.toUnsignedLong(tag)) + WireFormat.varintSize(length) + length);
        rawVarint(Integer.toUnsignedLong(tag));
        rawVarint(length);
        writeUtf8(value);
    }

    public void bytes(int field, byte[] value, int offset, int length) {
        int tag = WireFormat.tag(field, WireFormat.LENGTH_DELIMITED);
        ensure(WireFormat.varintSize(Integer.toUnsignedLong(tag)) + WireFormat.varintSize(length) + length);
        rawVarint(Integer.toUnsignedLong(tag));
        rawVarint(length);
        buf.put(pos, value, offset, length);
        pos += length;
    }

    /** Appends already-encoded field bytes verbatim. */
    public void raw(byte[] encoded, int offset, int length) {
        ensure(length);
        buf.put(pos, encoded, offset, length);
        pos += length;
    }

    private void push() {
        if (depth == MAX_NESTING) {
            throw new IllegalStateException("proto messages nested deeper than " + MAX_NESTING);
        }
        sizeFieldOffsets[depth++] = pos;
        pos += WireFormat.RESERVED_SIZE_BYTES;
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

    private void writeUtf8(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buf.put(pos++, (byte) c);
            } else if (c < 0x800) {
                buf.put(pos++, (byte) (0xC0 | (c >>> 6)));
                buf.put(pos++, (byte) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
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
