package io.jtrace.agent.jmx;

import io.jtrace.agent.tracks.Sampler;
import io.jtrace.agent.tracks.CounterSet;
import io.jtrace.protos.CounterDescriptor;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls MBean attributes into counter tracks under the process, one per matching MBean. An attribute
 * that is missing, fails to read or is not a number is reported once per MBean and attribute (naming
 * both) and skipped; an object name that matches no MBean is reported once too (a typo is the likely
 * cause) and looked for again every period, since MBeans come and go (pools, connection pools
 * registered late).
 */
final class MBeanAttributeSampler implements Sampler {
    private static final Logger LOG = LoggerFactory.getLogger(MBeanAttributeSampler.class);

    private final Supplier<MBeanServer> servers;
    private final List<MBeanAttributeSpec> specs;
    private final CounterSet counters;
    /** Tracks (MBean and attribute) whose problem was logged. */
    private final Set<String> reported = new HashSet<>();
    /** Specs logged for matching no MBean. */
    private final Set<MBeanAttributeSpec> unmatchedReported = new HashSet<>();

    /** {@code servers} gives the MBean server, or null while it is not up yet (that period is skipped). */
    MBeanAttributeSampler(Supplier<MBeanServer> servers, List<MBeanAttributeSpec> specs, CounterSet counters) {
        this.servers = servers;
        this.specs = specs;
        this.counters = counters;
    }

    @Override
    public void sample(long now) {
        // Not looked up when the session is set up: the JVM's first getPlatformMBeanServer() starts every
        // platform MBean, which a session's start (and premain, and the application behind it) would wait for.
        MBeanServer server = servers.get();
        if (server == null) {
            return;
        }
        for (MBeanAttributeSpec spec : specs) {
            Set<ObjectName> instances = server.queryNames(spec.objectName(), null);
            if (instances.isEmpty() && unmatchedReported.add(spec)) {
                LOG.warn("jtrace jvm.jmx: attribute {}: no MBean matches {} (yet); it is looked for again every period",
                        spec.trackName(spec.objectName()), spec.objectName());
            }
            for (ObjectName instance : instances) {
                read(server, spec, instance, now);
            }
        }
    }

    private void read(MBeanServer server, MBeanAttributeSpec spec, ObjectName instance, long now) {
        String track = spec.trackName(instance);
        Object value;
        try {
            value = server.getAttribute(instance, spec.attribute());
            if (spec.key() != null) {
                if (!(value instanceof CompositeData)) {
                    reportOnce(track, "is not a composite value, so it has no key '" + spec.key() + "'");
                    return;
                }
                CompositeData composite = (CompositeData) value;
                if (!composite.containsKey(spec.key())) {
                    reportOnce(track, "has no key '" + spec.key() + "' (keys: " + composite.getCompositeType().keySet() + ")");
                    return;
                }
                value = composite.get(spec.key());
            }
        } catch (JMException | RuntimeException e) {
            reportOnce(track, "cannot be read: " + e);
            return;
        }
        if (value instanceof Double || value instanceof Float) {
            counters.set(track, CounterDescriptor.Unit.UNIT_UNSPECIFIED, now, ((Number) value).doubleValue());
        } else if (value instanceof Number) {
            counters.set(track, CounterDescriptor.Unit.UNIT_UNSPECIFIED, now, ((Number) value).longValue());
        } else if (value instanceof Boolean) {
            counters.set(track, CounterDescriptor.Unit.UNIT_UNSPECIFIED, now, (Boolean) value ? 1L : 0L);
        } else {
            reportOnce(track, "is not numeric (" + (value == null ? "null" : value.getClass().getName()) + ")");
        }
    }

    private void reportOnce(String track, String problem) {
        if (reported.add(track)) {
            LOG.warn("jtrace jvm.jmx: attribute {} {}; it is skipped", track, problem);
        }
    }
}
