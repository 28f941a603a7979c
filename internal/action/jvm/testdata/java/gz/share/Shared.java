package gz.share;

/** A class that the java action tests find on the class path. */
public class Shared {
    public static String value() {
        return "from-share";
    }
}
