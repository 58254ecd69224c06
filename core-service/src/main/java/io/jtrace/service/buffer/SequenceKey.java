package io.jtrace.service.buffer;

/**
 * A writer's sequence: the (producer, writer) pair that orders its chunks. A plain class with its hash
 * computed once: it is looked up for every chunk the service stores.
 */
final class SequenceKey {
    private final int producerId;
    private final int writerId;
    private final int hash;

    SequenceKey(int producerId, int writerId) {
        this.producerId = producerId;
        this.writerId = writerId;
        this.hash = producerId * 0x9E3779B1 ^ writerId;
    }

    int producerId() {
        return producerId;
    }

    int writerId() {
        return writerId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SequenceKey && ((SequenceKey) o).producerId == producerId
                && ((SequenceKey) o).writerId == writerId;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return producerId + ":" + writerId;
    }
}
