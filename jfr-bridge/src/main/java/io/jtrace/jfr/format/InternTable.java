package io.jtrace.jfr.format;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One kind of interned data on one sequence: values to iids (from 1), and the entries created since
 * they were last written, which the next packet must carry in its {@code interned_data}.
 */
final class InternTable<K> {
    private final Map<K, Long> iids = new HashMap<>();
    private final List<K> pendingKeys = new ArrayList<>();
    private final List<Long> pendingIids = new ArrayList<>();

    long iid(K key) {
        Long iid = iids.get(key);
        if (iid != null) {
            return iid;
        }
        long created = iids.size() + 1L;
        iids.put(key, created);
        pendingKeys.add(key);
        pendingIids.add(created);
        return created;
    }

    int size() {
        return iids.size();
    }

    boolean hasPending() {
        return !pendingKeys.isEmpty();
    }

    int pendingCount() {
        return pendingKeys.size();
    }

    K pendingKey(int i) {
        return pendingKeys.get(i);
    }

    long pendingIid(int i) {
        return pendingIids.get(i);
    }

    void clearPending() {
        pendingKeys.clear();
        pendingIids.clear();
    }

    void clear() {
        iids.clear();
        clearPending();
    }
}
