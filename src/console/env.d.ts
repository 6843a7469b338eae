// Style sheets are bundled by Bun's bundler; importing one has no value.
declare module "*.css";
