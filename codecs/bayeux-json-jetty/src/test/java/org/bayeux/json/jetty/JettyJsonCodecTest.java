package org.bayeux.json.jetty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import org.bayeux.api.json.JsonCodecContractTest;
import org.bayeux.api.json.JsonCodecProvider;
import org.bayeux.api.json.MalformedJsonException;
import org.junit.jupiter.api.Test;

/** Runs the codec contract against {@link JettyJsonCodec}, plus what is particular to it. */
class JettyJsonCodecTest extends JsonCodecContractTest {
    @Override
    protected JsonCodecProvider provider() {
        return new JettyJsonCodecProvider();
    }

    @Test
    void depthLimitsAboveTheSupportedMaximumAreRefused() {
        assertThat(new JettyJsonCodec(JettyJsonCodec.MAX_SUPPORTED_NESTING_DEPTH).maxNestingDepth())
                .isEqualTo(JettyJsonCodec.MAX_SUPPORTED_NESTING_DEPTH);
        assertThatThrownBy(() -> new JettyJsonCodec(JettyJsonCodec.MAX_SUPPORTED_NESTING_DEPTH + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 1 and 500");
    }

    @Test
    void aClassFieldIsPlainDataNeverAClassToLoad() throws MalformedJsonException {
        // Jetty's own parser would load and instantiate the named class.
        String json = "[{\"class\":\"java.lang.Object\",\"x-class\":\"java.lang.Object\"}]";
        assertThat(new JettyJsonCodec().parseMessages(json, HashMap::new))
                .containsExactly(new HashMap<>(Map.of("class", "java.lang.Object", "x-class", "java.lang.Object")));
    }
}
