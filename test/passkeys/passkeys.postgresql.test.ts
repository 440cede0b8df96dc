import { passkeySuite } from "./passkeys.suite";

passkeySuite("postgresql");
