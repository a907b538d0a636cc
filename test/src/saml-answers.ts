import { randomBytes } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import { SignedXml } from "xml-crypto";

/** The id of the sign-in request a `GET /auth/saml/login` redirect carries (HTTP-Redirect binding: deflated, base64). */
export function requestIdOf(location: string): string {
  const request = new URL(location).searchParams.get("SAMLRequest");
  if (!request) throw new Error(`no SAMLRequest in ${location}`);
  const xml = inflateRawSync(Buffer.from(request, "base64")).toString("utf8");
  return /\bID="([^"]+)"/.exec(xml)![1]!;
}

export interface AnswerFields {
  issuer: string;
  acsUrl: string;
  audience: string;
  inResponseTo: string;
  email: string;
  groups?: string[];
  /** Validity window; default from a minute ago to five minutes on. */
  notBefore?: Date;
  notOnOrAfter?: Date;
}

const id = () => `_${randomBytes(16).toString("hex")}`;

/** An assertion as an identity provider writes one (bearer subject, audience, email and groups attributes). */
export function assertionXml(fields: AnswerFields, assertionId = id()): string {
  const now = new Date();
  const notBefore = (fields.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
  const notOnOrAfter = (fields.notOnOrAfter ?? new Date(now.getTime() + 300_000)).toISOString();
  const values = (name: string, list: string[]) =>
    `<saml:Attribute Name="${name}">${list.map((v) => `<saml:AttributeValue>${v}</saml:AttributeValue>`).join("")}</saml:Attribute>`;
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${fields.issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${fields.email}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${fields.acsUrl}" InResponseTo="${fields.inResponseTo}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${fields.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${id()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${values("email", [fields.email])}${values("groups", fields.groups ?? [])}</saml:AttributeStatement>` +
    `</saml:Assertion>`
  );
}

/** Signs the (first) assertion in `xml` as the identity provider does: enveloped, exclusive c14n, RSA-SHA256. */
export function signAssertion(xml: string, key: { privateKey: string; certificate: string }): string {
  const signed = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.certificate,
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
    signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
  });
  signed.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
  });
  signed.computeSignature(xml, {
    location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: "after" },
  });
  return signed.getSignedXml();
}

/** The Response around one or more assertions. */
export function responseXml(fields: Pick<AnswerFields, "issuer" | "acsUrl" | "inResponseTo">, assertions: string): string {
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id()}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${fields.acsUrl}" InResponseTo="${fields.inResponseTo}">` +
    `<saml:Issuer>${fields.issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertions +
    `</samlp:Response>`
  );
}
