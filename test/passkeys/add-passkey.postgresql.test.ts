import { addPasskeySuite } from "./add-passkey.suite";

addPasskeySuite("postgresql");
