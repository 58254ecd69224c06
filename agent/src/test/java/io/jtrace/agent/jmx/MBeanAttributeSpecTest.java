package io.jtrace.agent.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MBeanAttributeSpecTest {
    @Test
    void attributeAndCompositeKeyFollowTheObjectName() throws Exception {
        MBeanAttributeSpec plain = MBeanAttributeSpec.parse("java.lang:type=OperatingSystem/ProcessCpuLoad");
        assertEquals(new ObjectName("java.lang:type=OperatingSystem"), plain.objectName());
        assertEquals("ProcessCpuLoad", plain.attribute());
        assertNull(plain.key());

        MBeanAttributeSpec composite = MBeanAttributeSpec.parse("java.lang:type=MemoryPool,name=*/Usage/used");
        assertTrue(composite.objectName().isPattern());
        assertEquals("Usage", composite.attribute());
        assertEquals("used", composite.key());
        assertEquals("java.lang:name=G1 Eden Space,type=MemoryPool/Usage/used",
                composite.trackName(new ObjectName("java.lang:type=MemoryPool,name=G1 Eden Space")));
    }

    @Test
    void aSlashInsideAQuotedValueBelongsToTheObjectName() {
        MBeanAttributeSpec spec = MBeanAttributeSpec.parse("app:type=Pool,path=\"/var/data\"/Size");
        assertEquals("\"/var/data\"", spec.objectName().getKeyProperty("path"));
        assertEquals("Size", spec.attribute());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ProcessCpuLoad", "java.lang:type=Memory", "java.lang:type=Memory/", "java.lang:/Usage",
            "java.lang:type=Memory/HeapMemoryUsage/used/extra", "java.lang:type=Memory/HeapMemoryUsage/"})
    void malformedSpecsAreErrorsThatNameThem(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MBeanAttributeSpec.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    }
}
